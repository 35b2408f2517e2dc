#!/usr/bin/env python3
"""tabulate_real.py - one Markdown table of several `hdsim --real` outputs.

    bench/tabulate_real.py REAL.txt [REAL.txt ...] > table.md

Each file is the stdout+stderr of one `hdsim --real` process.  The table has a
row per lesson / scenario and, per file, the predicted and measured makespan
and the error as hdsim printed them; below it a line per file: how many
scenarios are within 10 % and 5 %, the median and the worst |error|.
"""
import re
import sys

SCEN = re.compile(r'^  (\S+)\s+predicted\s+(\S+ \S+)\s+measured\s+(\S+ \S+)\s+error\s+(\S+) %')
LESSON = re.compile(r'^Lesson (\S+):')


def main(files):
    rows, order = {}, []
    for k, name in enumerate(files):
        lesson = None
        with open(name, encoding='utf-8') as f:
            for line in f:
                m = LESSON.match(line)
                if m:
                    lesson = m.group(1)
                    continue
                m = SCEN.match(line)
                if m:
                    key = (lesson, m.group(1))
                    if key not in rows:
                        rows[key] = [None] * len(files)
                        order.append(key)
                    rows[key][k] = (m.group(2), m.group(3), m.group(4) + ' %')
    print('| lesson / scenario | ' + ' | '.join(
        'process %d predicted | measured | error' % (k + 1) for k in range(len(files))) + ' |')
    print('|---|' + '---|---|---|' * len(files))
    for key in order:
        cells = []
        for v in rows[key]:
            cells += list(v) if v else ['-', '-', '-']
        print('| %s / %s | %s |' % (key[0], key[1], ' | '.join(cells)))
    print()
    for k, name in enumerate(files):
        errs = sorted(abs(float(rows[r][k][2][:-2])) for r in order if rows[r][k])
        if not errs:
            print('process %d (%s): no scenarios' % (k + 1, name))
            continue
        print('process %d (%s): %d scenarios, %d within 10 %%, %d within 5 %%, '
              'median %.1f %%, worst %.1f %%' % (
                  k + 1, name.rsplit('/', 1)[-1], len(errs), sum(e < 10 for e in errs),
                  sum(e < 5 for e in errs), errs[len(errs) // 2], errs[-1]))


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit('usage: tabulate_real.py REAL.txt [REAL.txt ...]')
    main(sys.argv[1:])
