#!/usr/bin/env python3
"""spread.py - how much one generated scenario's measured time moves from one
lent machine to another, and whether the calibrated profiles follow it.

    HDSIM=_build/hdsim bench/gen/spread.py [SET [FROM]]

For SET (default tuning), every run kept as bench/results/DIR/runN/
real-SET.txt on an H200 (N from FROM on, default 42) is one machine's
measurement: the mean of its processes.  For each scenario not spin-bound
measured on three runs or more:
- the spread between machines: the standard deviation of the runs' means
  over their mean (CV), and the floor it sets: the median |error| a model
  would score if it predicted every run exactly the scenario's mean over
  the runs (no one profile for all machines does better on average);
- the spread between the processes of one run, (max - min) / mean, as
  fidelity.py prints it;
- the correlation, over the runs, of the run's calibrated prediction
  (calibrated-scored.hdp where the run keeps one, else calibrated.hdp,
  the profile alone) with its measurement: near 1 where calibrate measures
  what makes that machine faster or slower, near 0 where it does not.
Then the medians over the scenarios, beside the built-in h200-sxm's and the
calibrated profiles' median |error| on the same runs.  A set still kept
unread must not be named here.
"""
import glob
import math
import os
import re
import statistics
import sys

from fidelity import TOP, measured, predict


def main():
    setname = sys.argv[1] if len(sys.argv) > 1 else "tuning"
    first = int(sys.argv[2]) if len(sys.argv) > 2 else 42
    runs = []
    for f in glob.glob(os.path.join(TOP, "bench", "results", "*h200*", "run*",
                                    "real-%s.txt" % setname)):
        run = os.path.dirname(f)
        num = int(re.sub(r"\D", "", os.path.basename(run)) or 0)
        if num < first:
            continue
        cal = os.path.join(run, "calibrated-scored.hdp")
        if not os.path.exists(cal):
            cal = os.path.join(run, "calibrated.hdp")
        runs.append((num, cal, measured([f])))
    runs.sort()
    if len(runs) < 3:
        sys.exit("spread.py: %s is kept from %d H200 run(s) since run%d; it needs three"
                 % (setname, len(runs), first))
    names = sorted({n for _, _, m in runs for n in m})
    cv, floor, within, corr, eb, ec = [], [], [], [], [], []
    print("%s: %d runs (%s)" % (setname, len(runs), " ".join("run%d" % r[0] for r in runs)))
    print("scenario  runs  between-machine CV  process spread  calibrated tracks (r)")
    for n in names:
        hds = os.path.join(TOP, "bench", "gen", setname, "single", n + ".hds")
        if not os.path.exists(hds) or "spin=bound" in open(hds).read():
            continue
        got = [(cal, m[n]) for _, cal, m in runs if n in m]
        if len(got) < 3:
            continue
        means = [statistics.mean(v) for _, v in got]
        mu = statistics.mean(means)
        cv.append(statistics.pstdev(means) / mu * 100)
        floor += [abs(x - mu) / mu * 100 for x in means]
        within += [(max(v) - min(v)) / statistics.mean(v) * 100 for _, v in got if len(v) > 1]
        pc = [predict(setname, cal, n) for cal, _ in got]
        pb = predict(setname, "h200-sxm", n)
        eb += [abs(pb - x) / x * 100 for x in means]
        ec += [abs(p - x) / x * 100 for p, x in zip(pc, means)]
        r = float("nan")
        if statistics.pstdev(pc) > 0 and statistics.pstdev(means) > 0:
            r = statistics.correlation(pc, means)
        corr.append(r)
        sp = [(max(v) - min(v)) / statistics.mean(v) * 100 for _, v in got if len(v) > 1]
        print("%s       %2d   %6.1f %%            %s         %+.2f"
              % (n, len(got), cv[-1], "%6.1f %%" % max(sp) if sp else "   one", r))
    if not cv:
        sys.exit("spread.py: no scenario of %s was measured on three runs" % setname)
    rs = [r for r in corr if not math.isnan(r)]
    print("median over %d scenarios: between-machine CV %.1f %%; floor (each run against the"
          " scenario's mean over the runs) %.1f %%; process spread %s; correlation of the"
          " calibrated prediction with the measurement %.2f"
          % (len(cv), statistics.median(cv), statistics.median(floor),
             "%.1f %%" % statistics.median(within) if within else "none (one process a run)",
             statistics.median(rs) if rs else float("nan")))
    print("median |error| on the same runs: built-in h200-sxm %.1f %%, calibrated %.1f %%"
          % (statistics.median(eb), statistics.median(ec)))


if __name__ == "__main__":
    main()
