#!/bin/sh
# gpu-ranks.sh - one multi-GPU session: what the machine is, hdsim --real on
# the rank lessons, and the all-reduce busBw target measured both ways in the
# same call (hdsim's bench/allreduce-busbw.hds and bench/torch_allreduce.py).
#
#   bench/gpu-ranks.sh HDSIM OUTDIR [STEPS]
#
# STEPS is a comma list of: doctor, real-ranks, hdsim-allreduce,
# torch-allreduce, compare (default: all, in that order).  Each step's output
# goes to OUTDIR/<step>.txt with the exact command line at its top; one step
# failing does not stop the next.  The database is OUTDIR/hdsim.db.
# NCCL_NVLS_ENABLE=0 for both hdsim and PyTorch (hdsim sets it for its ranks
# anyway unless it is set).
set -u
bin=$1
out=$2
steps=${3:-doctor,real-ranks,hdsim-allreduce,torch-allreduce,compare}
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
mkdir -p "$out"
export XDG_DATA_HOME="$out/xdg"
export NCCL_NVLS_ENABLE=0
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$ngpu" -ge 2 ] || echo "gpu-ranks.sh: nvidia-smi lists $ngpu GPUs; the rank steps need 2" >&2
sizes="64MiB 256MiB 1GiB"

. "$here/gpu-lib.sh"
machine_info

# hdsim's measured all-reduce on every GPU, one run per size
hdsim_allreduce() {
	for s in $sizes; do
		echo "### size $s"
		"$bin" --real "$here/allreduce-busbw.hds" --set "n=$ngpu" --set "size=$s" \
			--db "$out/hdsim.db"
	done
}

# The measured busBw of op "ar" at 1 GiB from each side, and their ratio.
compare() {
	h=$(awk '/^### size 1GiB/ { on = 1 } on && $1 == "ar" { ar = 1 }
		 on && ar && $1 == "busBw" { print $4; exit }' "$out/hdsim-allreduce.txt")
	t=$(awk '$1 == 1073741824 { print $7; exit }' "$out/torch-allreduce.txt")
	echo "all-reduce busBw at 1 GiB on $ngpu GPUs, NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE"
	echo "  hdsim --real (bench/allreduce-busbw.hds): ${h:-?} GB/s"
	echo "  torch.distributed all_reduce:             ${t:-?} GB/s"
	if [ -n "$h" ] && [ -n "$t" ]; then
		awk -v h="$h" -v t="$t" 'BEGIN { d = 100 * (h - t) / t;
			printf "  hdsim vs torch: %+.2f %% (target: within 2 %%): %s\n", d,
			(d <= 2 && d >= -2) ? "met" : "NOT met" }'
	fi
}

for s in $(echo "$steps" | tr ',' ' '); do
	case $s in
	doctor)          step doctor "$bin" doctor ;;
	real-ranks)      step real-ranks "$bin" --real --db "$out/hdsim.db" \
				$(grep -l '^ *ranks ' "$src"/lessons/*.hds) ;;
	hdsim-allreduce) step hdsim-allreduce hdsim_allreduce ;;
	torch-allreduce) step torch-allreduce python3 "$here/torch_allreduce.py" \
				--sizes "$(echo $sizes | tr ' ' ',')" --iters 20 --samples 5 ;;
	compare)         step compare compare ;;
	*)               echo "unknown step $s" >&2 ;;
	esac
done
