#!/usr/bin/env python3
"""score.py - how far the model's makespans are from the measured ones.

    bench/gen/score.py --pred PRED... --meas MEAS... [--json]

PRED: what `hdsim run FILE --json [--profile P]` wrote, one file per lesson
(or a folder: its .json files).  MEAS: the measurements (or a folder: its
.json and .txt files), in any of the forms hdsim gives them:

  - `hdsim run FILE --real --json` (the same object, backend "cuda");
  - `hdsim export --format json --db DB` (the stored runs: those with source
    "measured" are taken; of several for one scenario, the newest);
  - the text `hdsim --real FILE...` printed (its "predicted ... measured ...
    error ..." line per scenario; the measured figure has three digits).

Scenarios are matched by lesson id and scenario name.  The error of one is
(predicted - measured) / measured, as hdsim prints it; the report is of its
absolute value.  Each scenario's set and classes come from the metadata
bench/gen/gen.py puts in its title ("gen set=... mode=... spin=...
classes=..."); any other scenario counts in the set "other".

For each set (heldout/single, heldout/ranks, tuning/single, ..., and the
predicting profile): the median, 90th percentile (nearest rank) and worst
absolute error, how many are within 10 %; the scenarios whose spin kernels
set their length (spin=bound) apart, since a spin kernel runs for exactly
the time it is given; then the same figures per class, over the scenarios
not spin-bound.  --json writes the same as one JSON object.
"""
import argparse
import json
import os
import re
import statistics
import sys

SCEN = re.compile(r'^  (\S+)\s+predicted\s+\S+ \S+\s+measured\s+(\S+) (\S+)\s+error\s+\S+ %')
LESSON = re.compile(r'^Lesson (\S+):')
UNIT_PS = {'ps': 1, 'ns': 10**3, 'us': 10**6, 'ms': 10**9, 's': 10**12}


def files_of(paths, exts):
    """The files named, and those under the folders named that end in one of exts."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in sorted(os.walk(p)):
                out += [os.path.join(root, n) for n in sorted(names) if n.endswith(exts)]
        else:
            out.append(p)
    return out


def load(name, text):
    try:
        return json.loads(text)
    except ValueError as e:
        sys.exit('score.py: %s: not JSON: %s' % (name, e))


def meta_of(title):
    """The gen.py metadata of a scenario title: a dict, or None."""
    if not title or not title.startswith('gen '):
        return None
    m = dict(w.split('=', 1) for w in title.split()[1:] if '=' in w)
    m['classes'] = [c for c in m.get('classes', '').split(',') if c]
    return m


def read_pred(paths):
    """[(profile, lesson, scenario, makespan_ps, meta)] of hdsim-run files."""
    out = []
    for name in files_of(paths, ('.json',)):
        with open(name, encoding='utf-8') as f:
            d = load(name, f.read())
        if not isinstance(d, dict) or d.get('format') != 'hdsim-run':
            sys.exit('score.py: %s is not the output of hdsim run --json' % name)
        for s in d['scenarios']:
            out.append((d['profile'], d['lesson']['id'], s['scenario'], s['makespan_ps'],
                        meta_of(s.get('title'))))
    return out


def read_meas(paths):
    """{(lesson, scenario): measured makespan in ps} from any of the three forms."""
    got = {}
    for name in files_of(paths, ('.json', '.txt')):
        with open(name, encoding='utf-8') as f:
            text = f.read()
        if text.lstrip().startswith('{'):
            d = load(name, text)
            if d.get('format') == 'hdsim-run':
                if d.get('backend') == 'sim':
                    sys.exit('score.py: %s is a prediction (backend sim), not a measurement'
                             % name)
                for s in d['scenarios']:
                    got[(d['lesson']['id'], s['scenario'])] = s['makespan_ps']
            elif d.get('format') == 'hdsim-export':
                runs = sorted((r for r in d['runs'] if r.get('source') == 'measured'),
                              key=lambda r: r['run'])
                for r in runs:
                    got[(r['lesson'], r['scenario'])] = r['makespan_ps']
            else:
                sys.exit('score.py: %s: unknown JSON (format %r)' % (name, d.get('format')))
            continue
        lesson = None
        for line in text.splitlines():
            m = LESSON.match(line)
            if m:
                lesson = m.group(1)
                continue
            m = SCEN.match(line)
            if m and lesson is not None:
                got[(lesson, m.group(1))] = float(m.group(2)) * UNIT_PS[m.group(3)]
    return got


def figures(errs):
    """Median, p90, worst of |error| in %, and how many are within 10 %."""
    a = sorted(abs(e) for e, _ in errs)
    if not a:
        return None
    worst = max(errs, key=lambda x: abs(x[0]))
    return {'n': len(a), 'median': statistics.median(a),
            'p90': a[max(0, -(-9 * len(a) // 10) - 1)], 'worst': abs(worst[0]),
            'worst_scenario': worst[1], 'within10': sum(x <= 10 for x in a)}


def score(pred, meas):
    sets = {}
    for profile, lesson, scen, ps, meta in pred:
        key = 'other' if meta is None else '%s/%s' % (meta.get('set'), meta.get('mode'))
        s = sets.setdefault((key, profile), {'main': [], 'spin': [], 'classes': {},
                                             'missing': []})
        m = meas.get((lesson, scen))
        name = lesson if scen == 'main' else '%s/%s' % (lesson, scen)
        if not m:
            s['missing'].append(name)
            continue
        err = (ps - m) / m * 100.0
        if meta is not None and meta.get('spin') == 'bound':
            s['spin'].append((err, name))
            continue
        s['main'].append((err, name))
        for c in (meta or {}).get('classes', []):
            s['classes'].setdefault(c, []).append((err, name))
    out = []
    for (key, profile) in sorted(sets):
        s = sets[(key, profile)]
        out.append({'set': key, 'profile': profile, 'all': figures(s['main']),
                    'spin_bound': figures(s['spin']), 'missing': s['missing'],
                    'classes': {c: figures(v) for c, v in sorted(s['classes'].items())}})
    return out


def pct(v):
    return '%.1f %%' % v


def line(label, f):
    return '%-22s %4d %9s %9s %9s %6d  %s' % (label, f['n'], pct(f['median']), pct(f['p90']),
                                            pct(f['worst']), f['within10'],
                                            f['worst_scenario'])


def report(res):
    for r in res:
        print('Set %s, predicted with %s' % (r['set'], r['profile']))
        print('  %-22s %4s %9s %9s %9s %6s  %s' % ('', 'n', 'median', 'p90', 'worst',
                                                  '<=10%', 'worst scenario'))
        for label, f in (('all but spin-bound', r['all']), ('spin-bound', r['spin_bound'])):
            print('  ' + (line(label, f) if f else '%-22s    0' % label))
        if r['missing']:
            print('  not measured: %d (%s)' % (len(r['missing']), ', '.join(r['missing'])))
        if r['classes']:
            print('  by class (all but spin-bound):')
            for c, f in r['classes'].items():
                print('    ' + line(c, f))
        print()


def main():
    ap = argparse.ArgumentParser(description='Score predicted against measured makespans.')
    ap.add_argument('--pred', nargs='+', required=True, help='hdsim run --json outputs')
    ap.add_argument('--meas', nargs='+', required=True,
                    help='hdsim run --real --json, hdsim export --format json, or --real text')
    ap.add_argument('--json', action='store_true', help='write one JSON object')
    a = ap.parse_args()
    res = score(read_pred(a.pred), read_meas(a.meas))
    if a.json:
        json.dump({'format': 'hdsim-gen-score', 'sets': res}, sys.stdout, indent=1,
                  sort_keys=True)
        print()
    else:
        report(res)
    if not any(r['all'] or r['spin_bound'] for r in res):
        sys.exit('score.py: no scenario was both predicted and measured')


if __name__ == '__main__':
    main()
