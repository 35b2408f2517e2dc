#!/usr/bin/env python3
"""fidelity.py - the error of hdsim's predictions on a generated set, against
`hdsim --real` measurements, split as the fidelity work reports it.

    HDSIM=_build/hdsim bench/gen/fidelity.py SET BUILTIN CALIBRATED REAL...

SET is one of the sets `bench/gen/gen.py --list` names
(bench/gen/SET/single/*.hds); BUILTIN a built-in profile name (what a
learner without a GPU sees) and CALIBRATED a stored calibrated profile file:
both are predicted here with `hdsim run --json`, from the profile alone.
REAL are `hdsim --real` texts: directories of NNN.pK.txt files, or files
that join them, each part headed `==> NNN...` (how bench/results keeps
them); each text is one process, and its own prediction is the calibrated
profile with the host's figures measured again in that process (the refit).
For each prediction: n, median, 90th percentile, worst |error| and the count
within 10 % against the mean of the processes' bare makespans, spin-bound
scenarios apart; then the spread between processes, (max - min) / mean, and
for each prediction how many of the scenarios measured in two processes or
more it puts inside the range the processes measured (min to max): a miss
there is no larger than the machine's own spread, one outside it is the
model's.  PER=1 prints every scenario.
"""
import glob
import json
import os
import re
import statistics
import subprocess
import sys

UNIT = {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
LINE = re.compile(r"^  main\s+predicted\s+([\d.]+) (\w+)\s+measured\s+([\d.]+) (\w+)", re.M)
TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
HDSIM = os.environ.get("HDSIM", os.path.join(TOP, "_build", "hdsim"))


def texts(path):
    """(scenario number, text) of each process's output under path."""
    if os.path.isdir(path):
        for f in sorted(glob.glob(os.path.join(path, "*.txt"))):
            yield os.path.basename(f)[:3], open(f).read()
        return
    for part in re.split(r"^==> ", open(path).read(), flags=re.M)[1:]:
        yield part[:3], part


def runs(paths):
    """({scenario number: [measured makespan of each process]}, {the same:
    [what that process predicted]}) from --real texts (files or
    directories, as texts() reads them)."""
    meas, pred = {}, {}
    for path in paths:
        for n, text in texts(path):
            m = LINE.search(text)
            if m:
                meas.setdefault(n, []).append(float(m.group(3)) * UNIT[m.group(4)])
                pred.setdefault(n, []).append(float(m.group(1)) * UNIT[m.group(2)])
    return meas, pred


def measured(paths):
    """{scenario number: [makespan of each process]} from --real texts."""
    return runs(paths)[0]


def p90(a):
    """The 90th percentile of the sorted list a (the nearest rank)."""
    return a[max(0, -(-9 * len(a) // 10) - 1)]


def summary(errs):
    a = sorted(abs(e) for e in errs)
    if not a:
        return "n 0"
    return "n %2d  median %6.1f %%  p90 %6.1f %%  worst %7.1f %%  within 10 %%: %d" % (
        len(a), statistics.median(a), p90(a), a[-1], sum(1 for x in a if x <= 10))


def predict(setname, prof, n):
    hds = os.path.join(TOP, "bench", "gen", setname, "single", n + ".hds")
    out = subprocess.run([HDSIM, "run", hds, "--json", "--profile", prof],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["scenarios"][0]["makespan_ps"] * 1e-12


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    setname, pb, pc = sys.argv[1:4]
    meas, refit = runs(sys.argv[4:])
    rows = {"built-in": [], "calibrated": [], "refit": []}
    spin = {k: [] for k in rows}
    spreads, per = [], []
    inside = {k: 0 for k in rows}
    for n in sorted(meas):
        hds = open(os.path.join(TOP, "bench", "gen", setname, "single", n + ".hds")).read()
        bound = "spin=bound" in hds
        mv = statistics.mean(meas[n])
        sp = (max(meas[n]) - min(meas[n])) / mv * 100 if len(meas[n]) > 1 else None
        ps = {"built-in": predict(setname, pb, n), "calibrated": predict(setname, pc, n),
              "refit": statistics.mean(refit[n])}
        for k, p in ps.items():
            (spin if bound else rows)[k].append((p - mv) / mv * 100)
        if sp is not None and not bound:
            spreads.append(sp)
            for k, p in ps.items():
                inside[k] += min(meas[n]) <= p <= max(meas[n])
        per.append((n, mv, ps, bound, sp))
    print("set %s: %d scenarios measured" % (setname, len(meas)))
    for k in rows:
        print("  %-10s %s" % (k, summary(rows[k])))
    for k in spin:
        print("  spin-bound, %-10s %s" % (k, summary(spin[k])))
    if spreads:
        print("  spread between processes (not spin-bound): " + summary(spreads))
        print("  inside the processes' range (not spin-bound, %d measured twice or more): %s" % (
            len(spreads), ", ".join("%s %d" % (k, inside[k]) for k in rows)))
    if os.environ.get("PER"):
        for n, mv, ps, bound, sp in per:
            errs = tuple((ps[k] - mv) / mv * 100 for k in ("built-in", "calibrated", "refit"))
            print("  %s measured %10.4g ms  built-in %+7.1f %%  calibrated %+7.1f %%  "
                  "refit %+7.1f %%%s%s" % ((n, mv * 1e3) + errs + (
                      "  spin-bound" if bound else "",
                      "" if sp is None else "  spread %.1f %%" % sp)))


if __name__ == "__main__":
    main()
