#!/usr/bin/env python3
"""api_slowest.py - a calibrated profile with its API call costs taken as
`hdsim calibrate` takes them now: a slow round's, not the rounds' median.

    bench/api_slowest.py CALIBRATE.TXT PROFILE > OUT.hdp

CALIBRATE.TXT is the output of a calibration that measured the host in
rounds and took every figure's median (its summary lines read "KEY VALUE
(median of N rounds: a, b, c; base ...)"); PROFILE the profile it wrote.
For each call's own cost the API stage measures (real/calibrate/
calib_host.c, calp_api_pick; not its differences of two calls) the line
of PROFILE is rewritten with the slowest of three rounds (the upper
quartile of more); every other line is kept byte for byte.  A key whose
rounds agreed, or that a summary does not list in rounds, is kept as it
is.  So a run measured before the change is scored with what the
calibration would write now, from the same measurements.
"""
import re
import sys

# the API stage's calls' own costs, as calib_host.c's api_names lists them
# (not api.memcpy_sync, a difference of two calls: the rounds' median)
KEYS = ("api.launch", "api.memcpy", "api.event", "api.event_notiming", "api.wait",
        "api.sync", "api.memcpy_d2d", "api.sync_kernel", "api.sync_device")
UNIT = {"ps": 1e-6, "ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


def us(text):
    """A time as calibrate writes it ("3.52 us", "310 ns") in microseconds."""
    num, unit = text.split()
    return float(num) * UNIT[unit]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    summary = open(sys.argv[1], errors="replace").read()
    prof = open(sys.argv[2]).read()
    for key in KEYS:
        m = re.search(r"^  %s +\S+ \S+ +\((?:median|slowest|upper quartile) of (\d+) rounds: "
                      r"([^;)]+)" % re.escape(key), summary, re.M)
        if not m:
            continue
        rounds = sorted((v.strip() for v in m.group(2).split(",")), key=us)
        n = len(rounds)
        if n != int(m.group(1)):
            sys.exit("api_slowest.py: %s: %s lists %d rounds of %s" %
                     (sys.argv[1], key, n, m.group(1)))
        pick = rounds[n - 1 - (n - 1) // 4]
        prof, count = re.subn(r"^(%s = )[^#\n]*?( *#|$)" % re.escape(key),
                              lambda k: k.group(1) + pick + k.group(2), prof, flags=re.M)
        if count != 1:
            sys.exit("api_slowest.py: %s holds %d lines of %s" % (sys.argv[2], count, key))
    sys.stdout.write(prof)


if __name__ == "__main__":
    main()
