#!/usr/bin/env python3
"""scoreall.py - every generated set measured in bench/results, scored again
with this build's model.

    HDSIM=_build/hdsim bench/gen/scoreall.py [FROM]

For each run kept as bench/results/DIR/runN/real-SET.txt (N from FROM on,
default 1), the profile-only predictions, as fidelity.py makes them: the
built-in profile of the run's GPU (h100-sxm where DIR names an h100,
h200-sxm otherwise) and the run's own calibrated profile
(calibrated-scored.hdp where the run keeps one, else calibrated.hdp).
One line a run: median, 90th percentile and worst |error| over the
scenarios not spin-bound, against the mean of the run's processes; then,
for each GPU, the mean of each figure over its runs.  The lines of two
builds side by side tell whether a model change helps on every machine and
set measured, not only on the held-out set drawn for it (those sets were
read before, so this is tuning evidence, not a held-out score).
SKIP (space-separated set names) leaves sets out: those still kept unread.

    SKIP="heldout26" HDSIM=_build/hdsim bench/gen/scoreall.py 42
"""
import glob
import os
import re
import statistics
import sys

from fidelity import TOP, measured, p90, predict


def score(setname, prof, path):
    """(median, p90, worst) |error| of prof's predictions on one run."""
    meas = measured([path])
    errs = []
    for n in sorted(meas):
        hds = os.path.join(TOP, "bench", "gen", setname, "single", n + ".hds")
        if not os.path.exists(hds) or "spin=bound" in open(hds).read():
            continue
        mv = statistics.mean(meas[n])
        errs.append(abs(predict(setname, prof, n) - mv) / mv * 100)
    errs.sort()
    return (statistics.median(errs), p90(errs), errs[-1]) if errs else None


def main():
    first = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    skip = set(os.environ.get("SKIP", "").split())
    runs = []
    for f in glob.glob(os.path.join(TOP, "bench", "results", "*", "run*", "real-*.txt")):
        run = os.path.dirname(f)
        num = int(re.sub(r"\D", "", os.path.basename(run)) or 0)
        setname = os.path.basename(f)[len("real-"):-len(".txt")]
        if num < first or setname in skip or \
                not os.path.isdir(os.path.join(TOP, "bench", "gen", setname)):
            continue
        runs.append((num, run, setname, f))
    means = {}
    for num, run, setname, f in sorted(runs):
        gpu = "h100-sxm" if "h100" in os.path.basename(os.path.dirname(run)) else "h200-sxm"
        cal = os.path.join(run, "calibrated-scored.hdp")
        if not os.path.exists(cal):
            cal = os.path.join(run, "calibrated.hdp")
        b = score(setname, gpu, f)
        c = score(setname, cal, f) if os.path.exists(cal) else None
        if b is None:
            continue
        print("%-11s run%-3d %-9s built-in %5.1f %5.1f %6.1f %%   calibrated %s" % (
            setname, num, gpu, *b,
            "%5.1f %5.1f %6.1f %%" % c if c else "(none kept)"))
        means.setdefault(gpu, []).append((b, c))
    for gpu, rows in sorted(means.items()):
        b = [r[0] for r in rows]
        c = [r[1] for r in rows if r[1]]
        print("%s, mean over %d runs: built-in median %.2f p90 %.2f worst %.1f %%" % (
            gpu, len(b), *(statistics.mean(x) for x in zip(*b))), end="")
        if c:
            print("; calibrated (%d) median %.2f p90 %.2f worst %.1f %%" % (
                len(c), *(statistics.mean(x) for x in zip(*c))), end="")
        print()


if __name__ == "__main__":
    main()
