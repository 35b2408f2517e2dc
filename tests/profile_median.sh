#!/bin/sh
# profile_median.sh - bench/profile_median.py, which writes h100-sxm's
# measured figures: on made-up calibrate outputs it takes the median of the
# calibrations that measured a key as the reference does, leaves out one of
# another GPU, and rewrites only the keys asked for; and the commands
# profiles/h100-sxm.hdp and h200-sxm.hdp name still write those files, byte
# for byte, from the calibrations listed (skipped where bench/results is not there, as in
# a distribution tarball).
#
# Run by `make check` with $HDSIM_SRCDIR (the source tree) set; exits 77
# (skipped) when it is not, or without python3.
# shellcheck disable=SC2015  # "test && ok || fail" is safe: ok never fails
set -u

if [ -z "${HDSIM_SRCDIR:-}" ]; then
	echo "profile_median.sh: HDSIM_SRCDIR is not set: skipped"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "profile_median.sh: no python3: skipped"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hdsim-median.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

. "$(dirname "$0")/check-lib.sh"

pm="$HDSIM_SRCDIR/bench/profile_median.py"

# cal FILE GPU LAUNCH DESC PIN: a calibrate output with two summary lines
cal() {
	cat >"$1" <<EOF
GPU 0: $2, 132 SMs, 3 copy engines, 78.7 GiB of 79.2 GiB free
  api.launch           $3        (median of 3 rounds; base 3.80 us) $4
  host.pin_base        $5        (base 72.0 us) fitted alpha of cudaHostRegister
EOF
}
cal "$tmp/ref.txt" "NVIDIA H100 80GB HBM3" "4.00 us" "mean host time of a kernel launch" "100 us"
cal "$tmp/a.txt" "NVIDIA H100 80GB HBM3" "2.00 us" "mean host time of a kernel launch" "300 us"
cal "$tmp/b.txt" "NVIDIA H100 80GB HBM3" "9.00 us" "median host time of a kernel launch" "200 us"
cal "$tmp/c.txt" "NVIDIA H200" "50.0 us" "mean host time of a kernel launch" "900 us"

python3 "$pm" "$tmp/ref.txt" "$tmp/a.txt" "$tmp/b.txt" "$tmp/c.txt" >"$tmp/out" 2>"$tmp/err"
# api.launch: ref and a (b measured it another way, c is another GPU)
grep -q '^api.launch  *median 3e-06  *n  2  range 2e-06 .. 4e-06' "$tmp/out" && ok ||
	fail "api.launch is not the median of the two like measurements: $(cat "$tmp/out")"
# host.pin_base: ref, a and b alike, c left out
grep -q '^host.pin_base  *median 0.0002  *n  3' "$tmp/out" && ok ||
	fail "host.pin_base is not the median of three: $(cat "$tmp/out")"
grep -q 'c.txt left out: it calibrated NVIDIA H200, not NVIDIA H100 80GB HBM3' "$tmp/err" && ok ||
	fail "the other GPU's calibration is not named as left out: $(cat "$tmp/err")"

if python3 "$pm" --keys api.nothing "$tmp/ref.txt" "$tmp/a.txt" >/dev/null 2>"$tmp/err"; then
	fail "a key no calibration measured was taken"
else
	grep -q 'no calibration measured api.nothing as' "$tmp/err" && ok ||
		fail "no clear message for a key no calibration measured: $(cat "$tmp/err")"
fi

printf 'hdsim-profile 1\nname = "x"\n# source: old words\n#   more old words\napi.launch = 3.8 us        # a note\n# source: kept\nhost.pin_base = 72 us\n' >"$tmp/p.hdp"
python3 "$pm" --skip host.pin_base --write "$tmp/p.hdp" "$tmp/ref.txt" "$tmp/a.txt" >/dev/null 2>&1
grep -q '^api.launch = 3 us        # a note$' "$tmp/p.hdp" && ok ||
	fail "api.launch not rewritten with its note: $(cat "$tmp/p.hdp")"
grep -q 'old words' "$tmp/p.hdp" && fail "the old source comment stayed" || ok
grep -q '^# source: (measured: the median of 2 .hdsim calibrate. runs' "$tmp/p.hdp" && ok ||
	fail "no source line for the median: $(cat "$tmp/p.hdp")"
grep -q '^host.pin_base = 72 us$' "$tmp/p.hdp" && grep -q '^# source: kept$' "$tmp/p.hdp" && ok ||
	fail "--skip host.pin_base rewrote it"

# bench/api_slowest.py: a profile calibrated with the rounds' median gets
# its API call costs from the slowest round, and nothing else changes
as="$HDSIM_SRCDIR/bench/api_slowest.py"
cat >"$tmp/cal3.txt" <<'EOF'
  api.launch           3.86 us        (median of 3 rounds: 3.65 us, 4.60 us, 3.86 us; base 4.17 us) mean host time of a kernel launch
  api.sync             310 ns         (median of 3 rounds: 280 ns, 510 ns, 310 ns; base 495 ns) mean host time of a sync with nothing to wait for
  api.wait             190 ns         (base 310 ns) mean host time of cudaStreamWaitEvent
  host.memcpy_d2h      12.8 GB/s      (median of 3 rounds: 10.1 GB/s, 12.8 GB/s, 14.0 GB/s; base 12.0 GB/s) pageable
EOF
printf 'hdsim-profile 1\napi.launch = 3.86 us               # host time inside a kernel launch\napi.sync = 0.31 us\napi.wait = 0.19 us  # kept\nhost.memcpy_d2h = 12.8 GB/s\n' >"$tmp/cal3.hdp"
python3 "$as" "$tmp/cal3.txt" "$tmp/cal3.hdp" >"$tmp/slow.hdp" 2>"$tmp/err" && ok ||
	fail "api_slowest.py failed: $(cat "$tmp/err")"
grep -q '^api.launch = 4.60 us               # host time inside a kernel launch$' "$tmp/slow.hdp" && ok ||
	fail "api.launch is not the slowest round with its note: $(cat "$tmp/slow.hdp")"
grep -q '^api.sync = 510 ns$' "$tmp/slow.hdp" && ok || fail "api.sync is not 510 ns: $(cat "$tmp/slow.hdp")"
grep -q '^api.wait = 0.19 us  # kept$' "$tmp/slow.hdp" && grep -q '^host.memcpy_d2h = 12.8 GB/s$' "$tmp/slow.hdp" &&
	ok || fail "a key without rounds or not an API cost changed: $(cat "$tmp/slow.hdp")"
printf 'hdsim-profile 1\napi.sync = 0.31 us\n' >"$tmp/nolaunch.hdp"
if python3 "$as" "$tmp/cal3.txt" "$tmp/nolaunch.hdp" >/dev/null 2>"$tmp/err"; then
	fail "a profile without a key the summary lists in rounds was rewritten"
else
	grep -q 'holds 0 lines of api.launch' "$tmp/err" && ok || fail "no clear message: $(cat "$tmp/err")"
fi

# the built-in profile is what its command writes from the calibrations it names
list="$HDSIM_SRCDIR/profiles/h100-sxm.calibrations"
ref="$HDSIM_SRCDIR/bench/results/2026-11-28-fidelity-h100/run22/calibrate.txt"
if [ -f "$ref" ]; then
	cp "$HDSIM_SRCDIR/profiles/h100-sxm.hdp" "$tmp/h100.hdp"
	# the list's paths are words: one a line, no spaces
	# shellcheck disable=SC2046
	(cd "$HDSIM_SRCDIR" && python3 bench/profile_median.py \
		--skip host.cores,pcie.latency,pcie.gen,pcie.lanes,um.prefetch_base \
		--write "$tmp/h100.hdp" \
		"$ref" $(cat "$list")) >/dev/null 2>"$tmp/err"
	if cmp -s "$tmp/h100.hdp" "$HDSIM_SRCDIR/profiles/h100-sxm.hdp"; then ok; else
		fail "profiles/h100-sxm.hdp is not what its command writes now"
		diff "$HDSIM_SRCDIR/profiles/h100-sxm.hdp" "$tmp/h100.hdp" | head -20
	fi
	test "$(wc -l <"$list")" -eq 48 && ok || fail "h100-sxm.calibrations lists $(wc -l <"$list") files, not 48"
	# h200-sxm's host figures: the same calibrations, the keys it lists
	cp "$HDSIM_SRCDIR/profiles/h200-sxm.hdp" "$tmp/h200.hdp"
	# shellcheck disable=SC2046
	(cd "$HDSIM_SRCDIR" && python3 bench/profile_median.py \
		--keys "$(tr '\n' , <profiles/h200-sxm.keys)" --kind "H100 80GB HBM3" \
		--write "$tmp/h200.hdp" "$ref" $(cat "$list")) >/dev/null 2>"$tmp/err"
	# and those it lists apart from the lent H200s' own calibrations
	# shellcheck disable=SC2046
	(cd "$HDSIM_SRCDIR" && python3 bench/profile_median.py \
		--keys "$(tr '\n' , <profiles/h200-sxm.h200-keys)" --kind H200 \
		--write "$tmp/h200.hdp" bench/results/2026-11-28-heldout14-h200/run51/calibrate.txt \
		$(cat profiles/h200-sxm.calibrations)) >/dev/null 2>>"$tmp/err"
	if cmp -s "$tmp/h200.hdp" "$HDSIM_SRCDIR/profiles/h200-sxm.hdp"; then ok; else
		fail "profiles/h200-sxm.hdp is not what its command writes now"
		diff "$HDSIM_SRCDIR/profiles/h200-sxm.hdp" "$tmp/h200.hdp" | head -20
	fi
	grep -q '^gpu.hbm = 3.906 TB/s$' "$tmp/h200.hdp" && ok || fail "h200-sxm's GPU figures were rewritten"
	test "$(wc -l <"$HDSIM_SRCDIR/profiles/h200-sxm.calibrations")" -eq 28 && ok ||
		fail "h200-sxm.calibrations does not list 28 files"
	grep -q '^# source: (measured: the median of 28 .hdsim calibrate. runs on lent H200$' \
		"$tmp/h200.hdp" && ok || fail "no H200 median in h200-sxm: $(grep -c H200 "$tmp/h200.hdp")"
else
	echo "profile_median.sh: no bench/results here: the built-in's figures not rederived"
fi

finish profile_median.sh
