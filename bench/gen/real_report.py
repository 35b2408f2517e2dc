#!/usr/bin/env python3
"""real_report.py - one generated set measured with `hdsim --real` in several
processes: the error of three predictions and the spread between processes.

    real_report.py SET_DIR PRED_BUILTIN_DIR PRED_CALIBRATED_DIR REAL_TXT...

SET_DIR holds the set's single/*.hds (their titles say which are spin-bound);
PRED_*_DIR hold `hdsim run FILE --json --profile P` outputs named SET-NNN.json
(P the built-in profile, then the stored calibrated profile: what each
predicts alone); REAL_TXT are `hdsim --real FILE` texts named NNN.pK.txt
(K the process), whose own prediction is the calibrated profile with the
host's figures measured again in that process (the refit).  For each
prediction: n, median, 90th percentile and worst |error| against the mean of
the processes' measurements, and how many are within 10 %, with spin-bound
scenarios apart; then the spread between processes, (max - min) / mean per
scenario, and how many errors are larger than their scenario's spread.
"""
import glob
import json
import os
import re
import statistics
import sys

UNIT = {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
LINE = re.compile(r"^  main\s+predicted\s+([\d.]+) (\w+)\s+measured\s+([\d.]+) (\w+)", re.M)


def summary(errs):
    a = sorted(abs(e) for e in errs)
    if not a:
        return "n 0"
    p90 = a[max(0, -(-9 * len(a) // 10) - 1)]
    return "n %2d  median %6.1f %%  p90 %6.1f %%  worst %7.1f %%  within 10 %%: %d" % (
        len(a), statistics.median(a), p90, a[-1], sum(1 for x in a if x <= 10))


def main():
    setdir, pb, pc = sys.argv[1:4]
    meas, refit = {}, {}
    for f in sys.argv[4:]:
        m = LINE.search(open(f).read())
        if not m:
            continue
        n = os.path.basename(f).split(".")[0]
        meas.setdefault(n, []).append(float(m.group(3)) * UNIT[m.group(4)])
        refit.setdefault(n, []).append(float(m.group(1)) * UNIT[m.group(2)])
    setname = os.path.basename(os.path.normpath(setdir))
    rows = {"built-in": [], "calibrated": [], "refit": []}
    spin = {"built-in": [], "calibrated": [], "refit": []}
    spreads, outside = [], {"built-in": 0, "calibrated": 0, "refit": 0}
    for n in sorted(meas):
        hds = open(os.path.join(setdir, "single", n + ".hds")).read()
        bound = "spin=bound" in hds
        mv = statistics.mean(meas[n])
        spread = (max(meas[n]) - min(meas[n])) / mv * 100 if len(meas[n]) > 1 else None
        preds = {"refit": statistics.mean(refit[n])}
        for name, d in (("built-in", pb), ("calibrated", pc)):
            j = json.load(open(os.path.join(d, "%s-%s.json" % (setname, n))))
            preds[name] = j["scenarios"][0]["makespan_ps"] * 1e-12
        for name, p in preds.items():
            e = (p - mv) / mv * 100
            (spin if bound else rows)[name].append(e)
            if spread is not None and not bound and abs(e) > spread:
                outside[name] += 1
        if spread is not None and not bound:
            spreads.append(spread)
    print("set %s: %d scenarios measured" % (setname, len(meas)))
    for name in rows:
        print("  %-10s %s" % (name, summary(rows[name])))
        if spreads:
            print("  %-10s errors larger than the scenario's spread: %d of %d" % (
                "", outside[name], len(spreads)))
    for name in spin:
        print("  spin-bound, %-10s %s" % (name, summary(spin[name])))
    if spreads:
        print("  spread between processes (not spin-bound): " + summary(spreads).replace(
            "within 10 %", "within 10 %"))


if __name__ == "__main__":
    main()
