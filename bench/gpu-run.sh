#!/bin/sh
# gpu-run.sh - one GPU session: what the machine is, calibration, hdsim
# --real over every lesson, and the PyTorch peer figures, all into OUTDIR.
#
#   bench/gpu-run.sh HDSIM OUTDIR [STEPS]
#
# STEPS is a comma list of: doctor, real-builtin, calibrate, real-calibrated,
# torch (default: all, in that order).  Each step's output goes to
# OUTDIR/<step>.txt with the exact command line at its top; one step failing
# does not stop the next.  The database is OUTDIR/hdsim.db; calibrated
# profiles go to OUTDIR/xdg/hdsim/profiles.
set -u
bin=$1
out=$2
steps=${3:-doctor,real-builtin,calibrate,real-calibrated,torch}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export XDG_DATA_HOME="$out/xdg"
export NCCL_NVLS_ENABLE=0

{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "host: $(hostname)"
	uname -a
	nvidia-smi --query-gpu=name,pci.bus_id,driver_version,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,clocks.sm,clocks.mem --format=csv 2>&1
	nvidia-smi topo -m 2>&1
	ldd "$bin" 2>&1
	"$bin" --version 2>&1
} > "$out/machine.txt"

step() {
	name=$1
	shift
	echo "== $name: $*" >&2
	{
		echo "\$ $*"
		start=$(date +%s.%N)
		"$@"
		rc=$?
		end=$(date +%s.%N)
		echo "exit status $rc; wall $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s"
	} > "$out/$name.txt" 2>&1
	tail -n 3 "$out/$name.txt" >&2
}

for s in $(echo "$steps" | tr ',' ' '); do
	case $s in
	doctor)          step doctor "$bin" doctor ;;
	real-builtin)    step real-builtin "$bin" --real --db "$out/hdsim.db" ;;
	calibrate)       step calibrate "$bin" calibrate ;;
	real-calibrated) step real-calibrated "$bin" --real --db "$out/hdsim.db" ;;
	torch)           step torch python3 "$here/torch_copy.py" --sizes 256MiB,1GiB --samples 20 ;;
	*)               echo "unknown step $s" >&2 ;;
	esac
done
