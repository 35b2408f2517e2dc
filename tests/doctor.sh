#!/bin/sh
# doctor.sh - `hdsim doctor` reports what the machine has and never crashes.
#
# Exit 0 means at least one GPU is usable: the report lists each GPU with a
# compute capability.  Exit 1 means none: the report and the error say that
# no GPU was found, and why (no GPU support in this build, no driver, ...).
# Anything else (2, or death by a signal) fails.
set -u
[ -n "${HDSIM:-}" ] && [ -x "$HDSIM" ] || { echo "HDSIM not set: skipped"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

"$HDSIM" doctor > "$tmp/out" 2> "$tmp/err"
status=$?
echo "hdsim doctor exited $status"
case $status in
0|1) ;;
*)	echo "FAIL: hdsim doctor exited $status (a crash or a signal when above 128)"
	cat "$tmp/out" "$tmp/err"
	exit 1 ;;
esac
[ -s "$tmp/out" ] || { echo "FAIL: hdsim doctor printed no report"; fail=1; }
if grep -Eiq 'segmentation|core dumped|abort|assert|sanitizer|fatal' "$tmp/out" "$tmp/err"; then
	echo "FAIL: hdsim doctor's output shows a crash:"
	cat "$tmp/err"
	fail=1
fi

if [ "$status" -eq 1 ]; then
	# No usable GPU: stderr says so, and why; stdout keeps the report.
	grep -q 'no GPU support\|no CUDA-capable GPU was found' "$tmp/err" ||
		{ echo "FAIL: the error does not say that no GPU was found:"; cat "$tmp/err"; fail=1; }
	[ "$(wc -l < "$tmp/err")" -ge 1 ] || { echo "FAIL: no error message"; fail=1; }
	if grep -q 'GPU support in this build: none' "$tmp/out"; then
		grep -q 'configured without the CUDA' "$tmp/err" ||
			{ echo "FAIL: a build without CUDA does not say so"; fail=1; }
	else
		# A CUDA build: the report names the failing call and the reason.
		grep -q 'cudaGetDeviceCount' "$tmp/err" ||
			{ echo "FAIL: the error does not name the failing call"; fail=1; }
		why='no NVIDIA driver is loaded|libcuda.so was not found|no GPU is visible'
		why="$why|sees no GPU|could not be queried|not usable"
		grep -Eq "$why" "$tmp/out" ||
			{ echo "FAIL: the report does not say why there is no GPU"; fail=1; }
		for section in 'Host' 'NVIDIA driver' 'CUDA runtime' 'NCCL' 'GPUs' 'Environment' \
			'What hdsim can do here'; do
			grep -q "^$section\$" "$tmp/out" ||
				{ echo "FAIL: the report has no '$section' section"; fail=1; }
		done
		grep -q '^  no   hdsim --real' "$tmp/out" ||
			{ echo "FAIL: the report does not say --real cannot run here"; fail=1; }
		grep -q '^  yes  simulate' "$tmp/out" ||
			{ echo "FAIL: the report does not say simulation still works"; fail=1; }
	fi
else
	# At least one GPU: each is listed with a compute capability, a UUID and a bus id.
	grep -Eq '^  GPU [0-9]+: .*, compute capability [0-9]+\.[0-9]+$' "$tmp/out" ||
		{ echo "FAIL: no GPU line with a compute capability"; fail=1; }
	grep -Eq 'UUID: GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' \
		"$tmp/out" || { echo "FAIL: no GPU UUID in nvidia-smi's form"; fail=1; }
	grep -Eq 'PCI bus id: [0-9A-Fa-f]+:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9]' "$tmp/out" ||
		{ echo "FAIL: no PCI bus id"; fail=1; }
	grep -q '^  yes  hdsim --real' "$tmp/out" ||
		{ echo "FAIL: the report does not say --real can run"; fail=1; }
	[ -s "$tmp/err" ] && { echo "FAIL: stderr is not empty:"; cat "$tmp/err"; fail=1; }
fi

# CUDA_LAUNCH_BLOCKING=1 is warned about (in builds with CUDA).
if ! grep -q 'GPU support in this build: none' "$tmp/out"; then
	CUDA_LAUNCH_BLOCKING=1 NCCL_DEBUG=WARN "$HDSIM" doctor > "$tmp/out2" 2>/dev/null
	s2=$?
	[ "$s2" -eq "$status" ] ||
		{ echo "FAIL: exit $s2 with CUDA_LAUNCH_BLOCKING=1, $status without"; fail=1; }
	grep -q 'warning: CUDA_LAUNCH_BLOCKING=1' "$tmp/out2" ||
		{ echo "FAIL: no warning for CUDA_LAUNCH_BLOCKING=1"; fail=1; }
	grep -q '^  NCCL_DEBUG=WARN$' "$tmp/out2" ||
		{ echo "FAIL: NCCL_* variables are not listed"; fail=1; }
fi

[ "$fail" -eq 0 ] && echo "doctor: ok (exit $status)"
exit "$fail"
