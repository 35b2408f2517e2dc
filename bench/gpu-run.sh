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

. "$here/gpu-lib.sh"
machine_info

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
