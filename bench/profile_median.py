#!/usr/bin/env python3
"""profile_median.py - a built-in profile's measured figures as the median of
many `hdsim calibrate` runs on one kind of GPU.

    bench/profile_median.py [--write PROFILE] [--keys K1,...] [--skip K1,...] REF CAL...

REF is the output of the current `hdsim calibrate` (its summary says how
each figure is measured now); CAL are the outputs of earlier calibrations
on machines of the same kind (calibrate.txt files under bench/results; one
that names another GPU than REF is left out, with a note).  A
calibration counts for a key only when its summary line for that key ends
with the same description as REF's: a figure calibrate measured another way
(a median where it now takes a mean, a difference it no longer takes) is
left out.  For each key: the median, how many calibrations gave it, their
range.  --write rewrites PROFILE's lines for those keys (--keys: only these)
in place, each with a "# source:" line naming the median, the count, the
range and the dates the calibrations carry in their paths; --skip leaves
those keys alone.  profiles/h100-sxm.hdp says the command that wrote it.

One lent machine's host moves by tens of percent from one minute to the
next (bench/results/2026-11-22-h100-host/README.md); a built-in figure taken
from one or two calibrations carries whatever minute they caught.  The
median of many is what a learner without a GPU is best served by.
"""
import argparse
import os
import re
import statistics
import sys

UNIT = {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0,
        "B/s": 1.0, "KB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9, "TB/s": 1e12,
        "FLOP/s": 1.0, "GFLOP/s": 1e9, "TFLOP/s": 1e12,
        "B": 1.0, "KiB": 1024.0, "MiB": 1024.0 ** 2, "GiB": 1024.0 ** 3,
        "KB": 1e3, "MB": 1e6, "GB": 1e9, "": 1.0}
LINE = re.compile(r"^\s+([a-z]+\.[a-z0-9_]+)\s+([-\d.e+]+)\s*([A-Za-z/]*)\s+(\([^)]*\))?\s*(.*)$")
KEYLINE = re.compile(r"^([a-z]+\.[a-z0-9_]+)\s*=\s*([-\d.e+]+)\s*([A-Za-z/]*)(.*)$")
DATE = re.compile(r"(\d{4}-\d\d-\d\d)")
GPU = re.compile(r"^GPU 0: ([^,]+),", re.M)


def gpu(path):
    """The name of the GPU a calibrate output measured ("" if it names none)."""
    m = GPU.search(open(path, errors="replace").read())
    return m.group(1) if m else ""


def summary(path):
    """{key: (value in base units, description)} of one calibrate output."""
    out = {}
    for line in open(path, errors="replace"):
        m = LINE.match(line)
        if m and m.group(3) in UNIT and m.group(5):
            out.setdefault(m.group(1), (float(m.group(2)) * UNIT[m.group(3)],
                                        m.group(5).strip()))
    return out


def medians(ref, cals):
    """{key: (median, [values], [paths])} over the calibrations that measured
    each of REF's keys the way REF does."""
    res = {}
    for key, (_, desc) in ref.items():
        vals, paths = [], []
        for path, s in cals:
            if key in s and s[key][1] == desc:
                vals.append(s[key][0])
                paths.append(path)
        if vals:
            res[key] = (statistics.median(vals), vals, paths)
    return res


def fmt(v, unit):
    x = v / UNIT[unit]
    return ("%.4g" % x) + (" " + unit if unit else "")


def rewrite(profile, res, keys, kind):
    lines = open(profile).read().split("\n")
    out = []
    for line in lines:
        m = KEYLINE.match(line)
        if not m or m.group(1) not in res or m.group(1) not in keys:
            out.append(line)
            continue
        key, unit = m.group(1), m.group(3)
        med, vals, paths = res[key]
        # drop the key's old source comment: the lines above, back to a blank
        # line, a section heading or the previous key
        while out and out[-1].startswith("#") and not out[-1].startswith("# ---") and \
                (out[-1].startswith("# source:") or out[-1].startswith("#   ")):
            out.pop()
        dates = sorted({d for p in paths for d in DATE.findall(p)})
        span = "" if not dates else dates[0] + ": " if len(dates) == 1 else \
            "%s to %s: " % (dates[0], dates[-1])
        out.append("# source: (measured: the median of %d 'hdsim calibrate' runs on lent %s"
                   % (len(vals), kind))
        out.append("#   machines, %s%s to %s; bench/profile_median.py over the"
                   % (span, fmt(min(vals), unit), fmt(max(vals), unit)))
        out.append("#   calibrate.txt files under bench/results)")
        out.append("%s = %s%s" % (key, fmt(med, unit), m.group(4)))
    open(profile, "w").write("\n".join(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--write", metavar="PROFILE")
    ap.add_argument("--keys", default="")
    ap.add_argument("--skip", default="")
    ap.add_argument("--kind", help="the machines' GPU in the source lines (REF's GPU)")
    ap.add_argument("ref")
    ap.add_argument("cal", nargs="+")
    a = ap.parse_args()
    ref = summary(a.ref)
    if not ref:
        sys.exit("profile_median.py: %s holds no calibrate summary" % a.ref)
    name = gpu(a.ref)
    cals = []
    seen = set()
    for p in [a.ref] + a.cal:
        if os.path.realpath(p) in seen:  # REF listed among CAL too
            continue
        seen.add(os.path.realpath(p))
        g = gpu(p)
        if g != name:
            print("profile_median.py: %s left out: it calibrated %s, not %s"
                  % (p, g or "no named GPU", name), file=sys.stderr)
            continue
        cals.append((p, summary(p)))
    res = medians(ref, cals)
    keys = set(k for k in a.keys.split(",") if k) or set(res)
    keys -= set(k for k in a.skip.split(",") if k)
    if keys - set(res):
        sys.exit("profile_median.py: no calibration measured %s as %s does"
                 % (", ".join(sorted(keys - set(res))), a.ref))
    for key in sorted(keys):
        med, vals, _ = res[key]
        print("%-24s median %-12.5g n %2d  range %.5g .. %.5g" % (key, med, len(vals), min(vals),
                                                                  max(vals)))
    if a.write:
        kind = a.kind or (name[len("NVIDIA "):] if name.startswith("NVIDIA ") else name)
        rewrite(a.write, res, keys, kind)


if __name__ == "__main__":
    main()
