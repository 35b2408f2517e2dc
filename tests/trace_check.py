#!/usr/bin/env python3
# trace_check.py - check a Chrome trace-event JSON file against the rules
# Perfetto's importer relies on (see doc/hdsim.1, EXPORT):
#   - the file is {"traceEvents": [...]} (an object) or a list of events;
#   - every event has ph, name, pid, tid and ts; ts and dur are numbers of
#     microseconds, ts >= 0 and dur >= 0 on complete ("X") events;
#   - "X" slices on one (pid, tid) nest: each one either starts at or after
#     the end of the slice open before it, or ends within it;
#   - every process and every thread that has slices is named by "M"
#     metadata (process_name, thread_name), and sort indexes are integers;
#   - flows: every "s" id has exactly one "f" with the same id, cat and name,
#     the "f" binds to its enclosing slice ("bp": "e"), and both ends fall
#     inside a slice of their own thread.
# Times are compared as decimals, exactly as written: no float rounding.
# Usage: trace_check.py FILE [MAX_END_US]; with MAX_END_US, the last slice
# must end exactly there (the units check: the makespan in microseconds).
# Exits 0 and prints a summary, or 1 listing the first problems.
import json
import sys
from decimal import Decimal

problems = []


def bad(msg):
    problems.append(msg)


def main():
    path = sys.argv[1]
    with open(path, "rb") as f:
        doc = json.loads(f.read().decode("utf-8"), parse_float=Decimal)
    if isinstance(doc, dict):
        events = doc.get("traceEvents")
        if not isinstance(events, list):
            bad("the object has no traceEvents list")
            return
    elif isinstance(doc, list):
        events = doc
    else:
        bad("the file is neither an object nor a list")
        return

    slices = {}
    pnames, tnames = set(), set()
    flows_s, flows_f = {}, {}
    for i, e in enumerate(events):
        if not isinstance(e, dict):
            bad("event %d is not an object" % i)
            continue
        for k in ("ph", "name", "pid", "tid", "ts"):
            if k not in e:
                bad("event %d has no %s: %r" % (i, k, e))
        ph = e.get("ph")
        if not isinstance(e.get("name"), str):
            bad("event %d: name is not a string" % i)
        for k in ("pid", "tid"):
            if not isinstance(e.get(k), int):
                bad("event %d: %s is not an integer" % (i, k))
        ts = e.get("ts")
        if not isinstance(ts, (int, Decimal)) or isinstance(ts, bool) or ts < 0:
            bad("event %d: ts %r is not a number of microseconds >= 0" % (i, ts))
            continue
        key = (e.get("pid"), e.get("tid"))
        if ph == "X":
            dur = e.get("dur")
            if not isinstance(dur, (int, Decimal)) or isinstance(dur, bool) or dur < 0:
                bad("event %d: dur %r is not a number >= 0" % (i, dur))
                continue
            slices.setdefault(key, []).append((Decimal(ts), Decimal(ts) + Decimal(dur), i))
        elif ph == "M":
            args = e.get("args")
            if not isinstance(args, dict):
                bad("metadata event %d has no args" % i)
                continue
            n = e["name"]
            if n == "process_name":
                if not isinstance(args.get("name"), str) or not args["name"]:
                    bad("process_name %d has no name" % i)
                pnames.add(e["pid"])
            elif n == "thread_name":
                if not isinstance(args.get("name"), str) or not args["name"]:
                    bad("thread_name %d has no name" % i)
                tnames.add(key)
            elif n in ("process_sort_index", "thread_sort_index"):
                if not isinstance(args.get("sort_index"), int):
                    bad("%s %d: sort_index is not an integer" % (n, i))
            elif n == "process_labels":
                if not isinstance(args.get("labels"), str):
                    bad("process_labels %d: labels is not a string" % i)
            else:
                bad("metadata event %d has an unknown name %r" % (i, n))
        elif ph in ("s", "f"):
            fid = e.get("id")
            if fid is None:
                bad("flow event %d has no id" % i)
                continue
            side = flows_s if ph == "s" else flows_f
            if fid in side:
                bad("flow id %r has two %r events" % (fid, ph))
            side[fid] = e
            e["_index"] = i
            if ph == "f" and e.get("bp") != "e":
                bad("flow finish %d does not bind to its enclosing slice (bp)" % i)
        elif ph in ("B", "E", "i", "I", "C", "b", "e", "n", "t"):
            pass
        else:
            bad("event %d has an unknown phase %r" % (i, ph))

    # nesting, per thread
    for key, v in slices.items():
        v.sort(key=lambda s: (s[0], -s[1], s[2]))
        stack = []
        for start, end, i in v:
            while stack and stack[-1][1] <= start:
                stack.pop()
            if stack and end > stack[-1][1]:
                o = stack[-1]
                bad("pid %d tid %d: slice %d [%s, %s] overlaps slice %d [%s, %s] "
                    "without nesting" % (key[0], key[1], i, start, end, o[2], o[0], o[1]))
                continue
            stack.append((start, end, i))
        if key not in tnames:
            bad("pid %d tid %d has slices but no thread_name" % key)
        if key[0] not in pnames:
            bad("pid %d has slices but no process_name" % key[0])

    def inside(e, j):
        # a slice of its thread holds it, and comes before it in the file
        # when it starts at the same time (an importer binds a flow to the
        # slice already open when it meets the flow event)
        for start, end, i in slices.get((e["pid"], e["tid"]), []):
            ts = Decimal(e["ts"])
            if start <= ts <= end and (start < ts or i < j):
                return True
        return False

    for fid, s in flows_s.items():
        f = flows_f.get(fid)
        if f is None:
            bad("flow %r starts but never finishes" % fid)
            continue
        if s.get("cat") != f.get("cat") or s.get("name") != f.get("name"):
            bad("flow %r: start and finish differ in cat or name" % fid)
        if not inside(s, s["_index"]) or not inside(f, f["_index"]):
            bad("flow %r: an end lies outside every slice of its thread" % fid)
    for fid in flows_f:
        if fid not in flows_s:
            bad("flow %r finishes but never starts" % fid)

    if len(sys.argv) > 2 and slices:
        last = max(end for v in slices.values() for _, end, _ in v)
        if last != Decimal(sys.argv[2]):
            bad("the last slice ends at %s us, not %s us" % (last, sys.argv[2]))
    if not problems:
        print("%s: %d events, %d threads with slices, %d flows: ok"
              % (path, len(events), len(slices), len(flows_s)))


main()
if problems:
    for p in problems[:20]:
        print("trace_check: " + p)
    if len(problems) > 20:
        print("trace_check: ... and %d more" % (len(problems) - 20))
    sys.exit(1)
