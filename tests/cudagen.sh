#!/bin/sh
# cudagen.sh - `hdsim show --cuda` prints real code: for every scenario of
# every built-in lesson, the CUDA C compiles with nvcc against
# kernels/kernels.h (when nvcc is there) and the PyTorch is valid Python
# (when python3 is there).
set -u
[ -n "${HDSIM:-}" ] && [ -x "$HDSIM" ] || { echo "HDSIM not set: skipped"; exit 77; }
src=${HDSIM_SRCDIR:-.}
nvcc=${NVCC:-}
[ -n "$nvcc" ] && [ -x "$nvcc" ] || nvcc=
py=$(command -v python3 || true)
[ -n "$nvcc$py" ] || { echo "neither nvcc nor python3: skipped"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0 checked=0

lessons=$(ls "$src"/lessons/*.hds)
for lesson in $lessons; do
	out="$tmp/show.txt"
	if ! "$HDSIM" show --cuda "$lesson" > "$out" 2> "$tmp/err"; then
		echo "FAIL: show --cuda $lesson: $(cat "$tmp/err")"
		fail=1
		continue
	fi
	# Split into one .cu and one .py per scenario.
	awk -v dir="$tmp" '
		/^==== / { n++; mode = ""; next }
		/^---- CUDA C ----$/ { mode = "cu"; next }
		/^---- PyTorch ----$/ { mode = "py"; next }
		mode != "" { print > (dir "/s" n "." mode) }
	' "$out"
	for cu in "$tmp"/s*.cu; do
		[ -f "$cu" ] || { echo "FAIL: $lesson: no CUDA C printed"; fail=1; continue; }
		py_file=${cu%.cu}.py
		grep -q 'int main(void)' "$cu" || { echo "FAIL: $lesson: no main in $cu"; fail=1; }
		if [ -n "$nvcc" ]; then
			if ! "$nvcc" -c -o "$tmp/x.o" -I"$src/kernels" "$cu" 2> "$tmp/nvcc.err"; then
				echo "FAIL: $lesson: generated CUDA C does not compile:"
				cat "$tmp/nvcc.err"; cat -n "$cu"
				fail=1
			fi
		fi
		if [ -n "$py" ] && ! "$py" -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' \
			"$py_file" 2> "$tmp/py.err"; then
			echo "FAIL: $lesson: generated PyTorch is not valid Python:"
			cat "$tmp/py.err"; cat -n "$py_file"
			fail=1
		fi
		checked=$((checked + 1))
		rm -f "$cu" "$py_file"
	done
done

# The C names the same calls the lesson's ops stand for.
"$HDSIM" show --cuda pinned-vs-pageable --scenario pageable > "$tmp/one.txt" || fail=1
grep -q 'cudaMemcpyAsync(d, h, 268435456ULL, cudaMemcpyHostToDevice, s)' "$tmp/one.txt" ||
	{ echo "FAIL: pinned-vs-pageable, pageable: no cudaMemcpyAsync of 256 MiB on s"; fail=1; }
grep -qF 'h = (char *)malloc(268435456ULL)' "$tmp/one.txt" ||
	{ echo "FAIL: pinned-vs-pageable, pageable: the pageable buffer is not malloc'd"; fail=1; }
"$HDSIM" show --cuda pinned-vs-pageable --scenario pageable --set size=1MiB > "$tmp/one.txt" || fail=1
grep -q 'cudaMemcpyAsync(d, h, 1048576ULL' "$tmp/one.txt" ||
	{ echo "FAIL: --set size=1MiB did not reach the CUDA C"; fail=1; }
# A lesson's `if` on a loop index prints as an if on the loop's variable,
# the knob's value in place of its name, the lesson's words in a comment.
"$HDSIM" show --cuda log-every-n --scenario log-every-n > "$tmp/one.txt" || fail=1
grep -qF '    for (long i = 0; i < 100L; i++) {' "$tmp/one.txt" &&
	grep -qF '        if (i % 10 == 0) {  /* if i % every == 0 */' "$tmp/one.txt" &&
	grep -qF 'for i in range(100):' "$tmp/one.txt" &&
	grep -qF '    if i % 10 == 0:  # if i % every == 0' "$tmp/one.txt" ||
	{ echo "FAIL: log-every-n: the condition is not an if on the loop's variable"; fail=1; }
"$HDSIM" show --cuda log-every-n --scenario log-every-n --set every=7 > "$tmp/one.txt" || fail=1
grep -qF 'if (i % 7 == 0) {' "$tmp/one.txt" ||
	{ echo "FAIL: --set every=7 did not reach the condition"; fail=1; }
# A graph: captured in the set-up, launched with one call; in PyTorch, a CUDAGraph replayed.
"$HDSIM" show --cuda cuda-graphs --scenario graph --set n=12 > "$tmp/graph.txt" || fail=1
for want in 'CK(cudaStreamBeginCapture(capture, cudaStreamCaptureModeGlobal));' \
	'for (long i0 = 0; i0 < 12L; i0++) {' 'CK(hd_kernel_spin(capture, 1000ULL, 1));' \
	'CK(cudaStreamEndCapture(capture, &captured));' 'CK(cudaGraphInstantiate(&step, captured, 0));' \
	'CK(cudaGraphLaunch(step, s));' 'step = torch.cuda.CUDAGraph()' \
	'with torch.cuda.graph(step):' 'step.replay()'; do
	grep -qF "$want" "$tmp/graph.txt" ||
		{ echo "FAIL: cuda-graphs, graph: no '$want' in show --cuda"; fail=1; }
done
# the capture comes before the launch, which is not inside the capture
awk '/cudaStreamEndCapture/ { e = NR } /cudaGraphLaunch\(step/ { l = NR } END { exit !(e && l > e) }' \
	"$tmp/graph.txt" || { echo "FAIL: cuda-graphs: the launch is not after the capture"; fail=1; }
if "$HDSIM" show --cuda pinned-vs-pageable --scenario nosuch > /dev/null 2>&1; then
	echo "FAIL: an unknown --scenario was accepted"; fail=1
fi

# Host threads: pthreads and a bounded queue in C; in PyTorch, the DataLoader
# for the input pipeline's shape, threading and queue.Queue otherwise.
"$HDSIM" show --cuda dataloader-workers --scenario pinned > "$tmp/dl.txt" || fail=1
for want in 'pthread_create(&th_0[w], NULL, worker_fn_0, (void *)w)' 'q_get(&ready);' \
	'memmove(staged, h, 33554432ULL);' 'q_init(&batches, 8);' \
	'loader = DataLoader(Batches(), batch_size=None, num_workers=4, pin_memory=True,' \
	'staged = next(loader_it)'; do
	grep -qF "$want" "$tmp/dl.txt" ||
		{ echo "FAIL: dataloader-workers, pinned: no '$want'"; fail=1; }
done
"$HDSIM" show --cuda dataloader-workers --scenario one > "$tmp/dl.txt" || fail=1
grep -qF 'num_workers=1, pin_memory=False' "$tmp/dl.txt" ||
	{ echo "FAIL: dataloader-workers, one: no DataLoader of one worker"; fail=1; }
grep -qF 'h = next(loader_it)' "$tmp/dl.txt" ||
	{ echo "FAIL: dataloader-workers, one: the batch is not taken from the loader"; fail=1; }
"$HDSIM" show --cuda dataloader-workers --scenario workers --set workers=2 > "$tmp/dl.txt" || fail=1
grep -qF 'num_workers=2, pin_memory=False,' "$tmp/dl.txt" ||
	{ echo "FAIL: --set workers=2 did not reach the DataLoader"; fail=1; }

# An `if` on a loop index inside a thread's body stays an `if` in the
# thread's function (C and Python), and such a body is not the DataLoader's
# shape; the C compiles, the Python parses.
cat > "$tmp/cond-worker.hds" <<'EOF'
hdsim 1
lesson cond-worker
title "A condition in a thread"
knob every 2 1 .. 4 "put every this many"
scenario cond
  buffer h pinned 1MiB
  buffer d device 1MiB
  queue q 4
  workers 1
    repeat 4 as i
      host 1ms
      if i % every == 0
        put q
      else
        host 500us
      end
    end
  end
  repeat 2
    get q
    copy h -> d
  end
end
EOF
"$HDSIM" show --cuda "$tmp/cond-worker.hds" > "$tmp/cw.txt" || fail=1
awk -v dir="$tmp" '/^---- CUDA C ----$/ { m = "cu"; next } /^---- PyTorch ----$/ { m = "py"; next }
	m != "" { print > (dir "/cw." m) }' "$tmp/cw.txt"
sed -n '/^static void \*worker_fn_0/,/^}/p' "$tmp/cw.cu" | grep -qF \
	'        if (i % 2 == 0) {  /* if i % every == 0 */' &&
	grep -qF '            q_put(&q);' "$tmp/cw.cu" &&
	sed -n '/^def worker_fn_0/,/^$/p' "$tmp/cw.py" | grep -qF \
	'        if i % 2 == 0:  # if i % every == 0' &&
	! grep -q 'DataLoader' "$tmp/cw.py" ||
	{ echo "FAIL: cond-worker: the thread's condition is not an if in its function"; fail=1; }
if [ -n "$nvcc" ] && ! "$nvcc" -c -o "$tmp/x.o" -I"$src/kernels" "$tmp/cw.cu" 2> "$tmp/nvcc.err"; then
	echo "FAIL: cond-worker: generated CUDA C does not compile:"; cat "$tmp/nvcc.err"; fail=1
fi
if [ -n "$py" ] && ! "$py" -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' \
	"$tmp/cw.py" 2> "$tmp/py.err"; then
	echo "FAIL: cond-worker: generated PyTorch is not valid Python:"; cat "$tmp/py.err"; fail=1
fi

echo "checked $checked scenarios (nvcc: ${nvcc:-none}, python3: ${py:-none})"
exit $fail
