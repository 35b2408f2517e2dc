#!/usr/bin/env python3
"""classes.py - which kinds of generated scenario a profile predicts short or
long, pooled over every measurement kept.

    HDSIM=_build/hdsim bench/gen/classes.py PROFILE SET=REAL[,REAL...] ...

PROFILE is a built-in profile name or a profile file; each SET=REAL names a
generated set (tuning, heldout, heldout2, ...) and the `hdsim --real` texts
that measured it, as fidelity.py reads them (directories of NNN.pK.txt, or
files whose parts are headed `==> NNN...`, as bench/results keeps them).  Each scenario not spin-bound counts once, at
the median of its processes; for every class tag the generator wrote in the
scenario's title (bench/gen/README.md) and for ALL: how many, the median
signed error, how many came out short, the median |error|.  A class that
leans one way across machines is the model's; one that scatters is the
machines'.
"""
import collections
import os
import re
import statistics
import sys

from fidelity import TOP, measured, predict


def main():
    if len(sys.argv) < 3 or any("=" not in a for a in sys.argv[2:]):
        sys.exit(__doc__)
    prof = sys.argv[1]
    errs = collections.defaultdict(list)
    for arg in sys.argv[2:]:
        setname, paths = arg.split("=", 1)
        for n, v in sorted(measured(paths.split(",")).items()):
            hds = os.path.join(TOP, "bench", "gen", setname, "single", n + ".hds")
            text = open(hds).read()
            if "spin=bound" in text:
                continue
            p = predict(setname, prof, n)
            mv = statistics.median(v)
            e = (p - mv) / mv * 100
            for c in re.search(r'classes=(\S*)"', text).group(1).split(",") + ["ALL"]:
                errs[c].append(e)
    rows = sorted((statistics.median(v), c) for c, v in errs.items())
    for med, c in rows:
        v = errs[c]
        print("%-20s n %3d  median signed %+6.1f %%  short %3d  median |error| %5.1f %%" % (
            c, len(v), med, sum(1 for x in v if x < 0), statistics.median(abs(x) for x in v)))


if __name__ == "__main__":
    main()
