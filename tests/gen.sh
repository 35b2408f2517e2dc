#!/bin/sh
# gen.sh - the generated scenario sets (bench/gen/): regenerated from their
# seeds they are byte for byte the committed files; every committed file
# lints and runs on the five built-in profiles; score.py scores a synthetic
# pair of predicted and measured outputs as it should.
#
# Run by `make check` with $HDSIM (the binary) and $HDSIM_SRCDIR (the source
# tree) set; exits 77 (skipped) when they are not, or without python3.
# shellcheck disable=SC2015  # "test && ok || fail" is safe: ok never fails
set -u

if [ -z "${HDSIM:-}" ] || [ -z "${HDSIM_SRCDIR:-}" ] || [ ! -x "$HDSIM" ]; then
	echo "gen.sh: HDSIM and HDSIM_SRCDIR are not set: skipped"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "gen.sh: no python3: skipped"
	exit 77
fi
unset HDSIM_LESSON_PATH NO_COLOR
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hdsim-gen.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

. "$(dirname "$0")/check-lib.sh"

gen="$HDSIM_SRCDIR/bench/gen"
profiles="h100-sxm h200-sxm a100-pcie rtx4090 gen3-v100"

# the named sets are gen.py's (SETS): every one has its folder, and every
# folder of scenarios is one of them
python3 "$gen/gen.py" --list >"$tmp/sets" || fail "gen.py --list failed"
sets=$(cut -d' ' -f1 "$tmp/sets")
dirs=$(find "$gen" -mindepth 2 -maxdepth 2 -name single -type d | sed 's|.*/\([^/]*\)/single$|\1|' | sort)
[ -n "$sets" ] && [ "$(echo "$sets" | sort)" = "$dirs" ] && ok ||
	fail "gen.py's sets ($(echo "$sets" | tr '\n' ' ')) are not the folders under bench/gen ($(echo "$dirs" | tr '\n' ' '))"

# --- determinism: each set again from its seed, compared with the committed files
for set in $sets; do
	if python3 "$gen/gen.py" --set "$set" --out "$tmp/$set" -q; then ok; else
		fail "gen.py --set $set failed"
	fi
	if diff -r "$gen/$set" "$tmp/$set" >"$tmp/diff"; then ok; else
		fail "bench/gen/$set differs from what gen.py --set $set writes now"
		head -20 "$tmp/diff"
	fi
done
cnt=$(find "$gen/heldout/single" -name '*.hds' | wc -l)
[ "$cnt" -eq 40 ] && ok || fail "heldout/single holds $cnt scenarios, not 40"
cnt=$(find "$gen/heldout/ranks" -name '*.hds' | wc -l)
[ "$cnt" -eq 16 ] && ok || fail "heldout/ranks holds $cnt scenarios, not 16"
while read -r set single _; do
	cnt=$(find "$gen/$set/single" -name '*.hds' | wc -l)
	[ "$cnt" -eq "$single" ] && ok || fail "$set/single holds $cnt scenarios, not $single"
done <"$tmp/sets"
# another seed draws other scenarios (so the comparison above can fail)
python3 "$gen/gen.py" --seed 1 --single 2 --ranks 0 --out "$tmp/other" -q &&
	! cmp -s "$tmp/other/single/000.hds" "$gen/heldout/single/000.hds" &&
	! cmp -s "$tmp/other/single/001.hds" "$gen/heldout/single/001.hds" && ok ||
	fail "gen.py --seed 1 wrote the held-out set's first scenarios"

# --- every committed file lints, and runs on every built-in profile
# shellcheck disable=SC2046  # set names are words
files=$(find $(for set in $sets; do echo "$gen/$set"; done) -name '*.hds' | sort)
if "$HDSIM" lint $files >"$tmp/lint" 2>&1; then ok; else
	fail "hdsim lint of the generated sets failed"
	grep -v ': ok:' "$tmp/lint" | head -10
fi
for f in $files; do
	for p in $profiles; do
		if "$HDSIM" run "$f" --json --profile "$p" >"$tmp/run.json" 2>"$tmp/run.err" &&
		   grep -q '"makespan_ps":[1-9]' "$tmp/run.json"; then ok; else
			fail "hdsim run ${f#"$gen"/} --json --profile $p: $(head -c 200 "$tmp/run.err")"
		fi
	done
done

# --- score.py on a synthetic pair: four scenarios measured three ways, one not
mkdir "$tmp/pred" "$tmp/meas"
pred() {    # pred INDEX SPIN CLASSES MAKESPAN_PS
	cat >"$tmp/pred/$1.json" <<EOF
{"format":"hdsim-run","format_version":1,"backend":"sim",
 "lesson":{"id":"gen-heldout-single_00$1","title":"t","number":1,"path":"x.hds"},
 "profile":"h100-sxm","knobs":[],
 "scenarios":[{"scenario":"main",
  "title":"gen set=heldout mode=single index=$1 seed=1 spin=$2 classes=$3",
  "makespan_ps":$4}],
 "claims":[],"claims_failed":0,"claims_unchecked":0}
EOF
}
pred 0 none copy-h2d,kernel-compute 105000000    # +5 %
pred 1 none copy-h2d 80000000                    # -20 %
pred 2 minor kernel-compute,kernel-spin 150000000 # +50 %
pred 3 bound kernel-spin 101000000               # +1 %, spin-bound
pred 4 none copy-h2d 100000000                   # never measured
sed -e 's/"sim"/"cuda"/' -e 's/105000000/100000000/' "$tmp/pred/0.json" >"$tmp/meas/0.json"
sed -e 's/"sim"/"cuda"/' -e 's/80000000/100000000/' "$tmp/pred/1.json" >"$tmp/meas/1.json"
cat >"$tmp/meas/export.json" <<EOF
{"format":"hdsim-export","format_version":1,"hdsim_version":"x","note":null,
"runs":[
{"database":"a.db","run":7,"lesson":"gen-heldout-single_002","scenario":"main",
 "source":"measured","makespan_ps":100000000},
{"database":"a.db","run":3,"lesson":"gen-heldout-single_002","scenario":"main",
 "source":"measured","makespan_ps":999},
{"database":"a.db","run":8,"lesson":"gen-heldout-single_002","scenario":"main",
 "source":"predicted","makespan_ps":5}],
"spans":[],"claims":[],"progress":[]}
EOF
cat >"$tmp/meas/real.txt" <<EOF
Lesson gen-heldout-single_003: Generated: heldout single scenario 3
  main                     predicted     101 us   measured     100 us   error   +1.0 %
EOF
if python3 "$gen/score.py" --pred "$tmp/pred" --meas "$tmp/meas" --json >"$tmp/score.json"
then ok; else fail "score.py --json failed"; fi
python3 - "$tmp/score.json" >"$tmp/score.check" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
want = [
    ('sets', len(d['sets']), 1),
    ('set', d['sets'][0]['set'], 'heldout/single'),
    ('profile', d['sets'][0]['profile'], 'h100-sxm'),
]
s = d['sets'][0]
a, sp, c = s['all'], s['spin_bound'], s['classes']
want += [
    ('n', a['n'], 3), ('median', a['median'], 20.0), ('p90', a['p90'], 50.0),
    ('worst', a['worst'], 50.0), ('worst scenario', a['worst_scenario'],
                                  'gen-heldout-single_002'),
    ('within 10 %', a['within10'], 1),
    ('spin-bound n', sp['n'], 1), ('spin-bound worst', round(sp['worst'], 6), 1.0),
    ('missing', s['missing'], ['gen-heldout-single_004']),
    ('classes', sorted(c), ['copy-h2d', 'kernel-compute', 'kernel-spin']),
    ('copy-h2d median', c['copy-h2d']['median'], 12.5),
    ('copy-h2d p90', c['copy-h2d']['p90'], 20.0),
    ('kernel-compute median', c['kernel-compute']['median'], 27.5),
    ('kernel-spin n', c['kernel-spin']['n'], 1),
]
for what, got, exp in want:
    if got != exp:
        print('score.py: %s is %r, wanted %r' % (what, got, exp))
EOF
if [ -s "$tmp/score.check" ]; then
	fail "score.py scored the synthetic pair wrongly"
	cat "$tmp/score.check"
else
	ok
fi
python3 "$gen/score.py" --pred "$tmp/pred" --meas "$tmp/meas" >"$tmp/score.txt" 2>&1
grep -q '^Set heldout/single, predicted with h100-sxm$' "$tmp/score.txt" && ok ||
	fail "score.py's report lacks its set line"
grep -q 'all but spin-bound *3 *20.0 % *50.0 % *50.0 % *1  gen-heldout-single_002' \
	"$tmp/score.txt" && ok || fail "score.py's report lacks the figures of the set"
grep -q 'not measured: 1 (gen-heldout-single_004)' "$tmp/score.txt" && ok ||
	fail "score.py's report does not name the scenario never measured"
# a prediction given as the measurement is refused
if python3 "$gen/score.py" --pred "$tmp/pred" --meas "$tmp/pred" >/dev/null 2>&1; then
	fail "score.py took a prediction for a measurement"
else
	ok
fi

# --- fidelity.py on two processes made up here: heldout2 000 measured at 0.9
# and 1.1 times the model's makespan (the prediction inside their range, no
# error against their mean), 001 at 2.0 and 2.2 times (outside, -52.4 %)
mkdir -p "$tmp/fid"
for sn in 000 001; do
	"$HDSIM" run "$gen/heldout2/single/$sn.hds" --json --profile h100-sxm >"$tmp/fid.json" 2>&1 ||
		fail "hdsim run heldout2 $sn failed"
	ps=$(sed -n 's/.*"makespan_ps":\([0-9]*\).*/\1/p' "$tmp/fid.json" | head -1)
	for pass in 1 2; do
		python3 -c 'import sys
ps, n, k = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
m = {("000", 1): 0.9, ("000", 2): 1.1, ("001", 1): 2.0, ("001", 2): 2.2}[(n, k)]
print("  main  predicted %.6f us   measured %.6f us   error" % (ps / 1e6, ps * m / 1e6))' \
			"${ps:-0}" "$sn" "$pass" >"$tmp/fid/$sn.p$pass.txt"
	done
done
if HDSIM="$HDSIM" python3 "$gen/fidelity.py" heldout2 h100-sxm h100-sxm "$tmp/fid" >"$tmp/fid.txt" 2>&1; then
	ok
else
	fail "fidelity.py failed: $(head -c 300 "$tmp/fid.txt")"
fi
grep -q '^  calibrated n  2  median   26.2 %  p90   52.4 %  worst    52.4 %  within 10 %: 1$' \
	"$tmp/fid.txt" && ok || fail "fidelity.py's errors are not the made-up ones: $(cat "$tmp/fid.txt")"
grep -q '^  spread between processes (not spin-bound): n  2  median   14.8 %' "$tmp/fid.txt" && ok ||
	fail "fidelity.py's spread is not the made-up one"
grep -q "^  inside the processes' range (not spin-bound, 2 measured twice or more): built-in 1, calibrated 1, refit 1$" \
	"$tmp/fid.txt" && ok || fail "fidelity.py does not count the prediction inside the processes' range"

# --- scenarios the model once missed by far, against what lent GPUs
# measured (bench/results/2026-11-28-fidelity-h100/): the built-in h100-sxm
# prediction within a factor of the measured band (min to max of the
# repeats, over the processes).  heldout3 004 and 005 allocate a small
# pinned buffer in a loop beside another (run19: 2.42-2.50 and 0.97-1.05
# ms; 40 and 6.4 ms predicted before the driver's heap of small blocks);
# tuning 001 runs two memory kernels on one buffer from two streams (run19,
# run20: 401-442 us; 541 us predicted before they shared its reads).
near() { # FILE LO_PS HI_PS FACTOR WHAT
	ps=$("$HDSIM" run "$gen/$1" --json --profile h100-sxm 2>/dev/null |
		sed -n 's/.*"makespan_ps":\([0-9]*\).*/\1/p' | head -1)
	if python3 -c 'import sys
ps, lo, hi, f = float(sys.argv[1] or 0), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
sys.exit(0 if lo / f <= ps <= hi * f else 1)' "${ps:-}" "$2" "$3" "$4"; then ok; else
		fail "$5: h100-sxm predicts ${ps:-nothing} ps, measured $2-$3 ps (within x$4)"
	fi
}
near heldout3/single/004.hds 2416000000 2500000000 1.35 "heldout3 004 (small pinned heap)"
near heldout3/single/005.hds 972000000 1048000000 1.2 "heldout3 005 (small pinned heap)"
near tuning/single/001.hds 401000000 442000000 1.2 "tuning 001 (two kernels reading one buffer)"

# --- classes.py: a made-up measurement twice the prediction is -50 % in
# every class the scenario carries, once each
ps=$("$HDSIM" run "$gen/heldout/single/000.hds" --json --profile h100-sxm 2>/dev/null |
	sed -n 's/.*"makespan_ps":\([0-9]*\).*/\1/p' | head -1)
us=$(python3 -c 'import sys; print("%.6f" % (2 * float(sys.argv[1]) / 1e6))' "${ps:-0}")
printf '==> 000.p1.txt <==\n  main                     predicted    1.00 us   measured    %s us   error  +0.0 %%\n' \
	"$us" >"$tmp/cls.txt"
if python3 "$gen/classes.py" h100-sxm "heldout=$tmp/cls.txt" >"$tmp/cls.out" 2>&1; then ok; else
	fail "classes.py failed: $(head -c 300 "$tmp/cls.out")"
fi
grep -q '^ALL  *n   1  median signed  -50.0 %  short   1  median |error|  50.0 %$' "$tmp/cls.out" &&
	ok || fail "classes.py's ALL row is not -50 %: $(cat "$tmp/cls.out")"
cls=$(sed -n 's/.*classes=\([^"]*\)".*/\1/p' "$gen/heldout/single/000.hds" | tr ',' '\n' | wc -l)
test "$(grep -c ' n   1  median signed  -50.0 %' "$tmp/cls.out")" -eq $((cls + 1)) && ok ||
	fail "classes.py does not list each of the scenario's $cls classes once"

finish gen.sh
