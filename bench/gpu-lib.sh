# gpu-lib.sh - what bench/gpu-run.sh and bench/gpu-ranks.sh share; sourced,
# with $bin (the hdsim binary) and $out (the results folder) set.

# OUT/machine.txt: the date, the host, the GPUs, their links, the binary.
machine_info() {
	{
		echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
		echo "host: $(hostname)"
		uname -a
		nvidia-smi --query-gpu=name,pci.bus_id,driver_version,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,clocks.sm,clocks.mem --format=csv 2>&1
		nvidia-smi topo -m 2>&1
		nvidia-smi nvlink --status 2>&1 | head -40
		ldd "$bin" 2>&1
		"$bin" --version 2>&1
		env | grep '^NCCL_' | sort
	} > "$out/machine.txt"
}

# step NAME CMD...: run CMD into OUT/NAME.txt, its command line at the top and
# its exit status and wall time at the end; a failing step does not stop the next.
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
