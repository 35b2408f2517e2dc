#!/bin/sh
# cli.sh - end-to-end test of the hdsim binary: options, exit statuses, the
# built-in lessons, --json, --plain, profiles, determinism, the GPU stub.
#
# Run by `make check` with $HDSIM (the binary) and $HDSIM_SRCDIR (the source
# tree) set; exits 77 (skipped) when they are not.
# shellcheck disable=SC2015  # "test && ok || fail" is safe: ok never fails
set -u

if [ -z "${HDSIM:-}" ] || [ -z "${HDSIM_SRCDIR:-}" ] || [ ! -x "$HDSIM" ]; then
	echo "cli.sh: HDSIM and HDSIM_SRCDIR are not set: skipped"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hdsim-cli.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
unset HDSIM_LESSON_PATH NO_COLOR
export COLUMNS=100

. "$(dirname "$0")/check-lib.sh"

# expect STATUS CMD... : run hdsim, keep stdout/stderr in $tmp/out, $tmp/err
expect() {
	want=$1
	shift
	"$HDSIM" "$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		fail "hdsim $* exited $got, wanted $want"
		sed 's/^/    stderr: /' "$tmp/err" | head -5
	else
		ok
	fi
}
has() {     # has FILE TEXT: FILE contains TEXT
	if grep -q -e "$2" "$1"; then ok; else fail "$1 lacks '$2' ($3)"; fi
}
lacks() {
	if grep -q -e "$2" "$1"; then fail "$1 has '$2' ($3)"; else ok; fi
}

# --- help, version, usage errors ---------------------------------------------
expect 0 --help
has "$tmp/out" "usage: hdsim" "--help"
has "$tmp/out" "run" "--help lists run"
expect 0 -h
expect 0 help run
has "$tmp/out" "usage: hdsim run" "help run"
expect 0 run --help
has "$tmp/out" "--scenario" "run --help"
expect 0 --version
has "$tmp/out" "^hdsim [0-9]" "--version"

expect 2 --frobnicate
has "$tmp/err" "unknown option '--frobnicate'; see 'hdsim --help'" "unknown option"
expect 2 run 1 --nope
has "$tmp/err" "unknown option '--nope'" "unknown option after command"
expect 2 frobnicate
has "$tmp/err" "unknown command 'frobnicate'" "unknown command"
expect 2 run
has "$tmp/err" "usage: hdsim run" "run without a lesson"
expect 2 list --quick
has "$tmp/err" "does not apply" "option for another command"
expect 2 run 1 --json --plain
expect 2 run 1 --width abc

# --- list, show ----------------------------------------------------------------
expect 0 list
for id in pinned-vs-pageable two-streams legacy-default-stream; do
	has "$tmp/out" "$id" "list"
done
lines=$(grep -c '^ *[0-9][0-9]*  ' "$tmp/out")
# every built-in lesson (the LESSON_FILES of Makefile.am), each once
want=$(grep -c '^	lessons/[^ ]*\.hds' "$HDSIM_SRCDIR/Makefile.am")
[ "$lines" -eq "$want" ] && ok || fail "list shows $lines numbered lessons, wanted $want"

expect 0 show 4
has "$tmp/out" "pinned-vs-pageable" "show 4"
has "$tmp/out" "Scenarios:" "show 4"
expect 2 show no-such-lesson
has "$tmp/err" "no lesson 'no-such-lesson'" "show of a missing lesson"

# --- run each lesson: text, json, plain ---------------------------------------
have_python=no
command -v python3 >/dev/null 2>&1 && have_python=yes

for l in 1 2 3 pinned-vs-pageable "$HDSIM_SRCDIR/lessons/06-two-streams.hds"; do
	expect 0 run "$l"
	has "$tmp/out" "Makespan" "run $l"
	has "$tmp/out" "Host blocked:" "run $l"
	has "$tmp/out" "Legend:" "run $l"
	# nothing is wider than the terminal ($COLUMNS)
	wide=$(awk 'length($0) > 100' "$tmp/out" | wc -l)
	[ "$wide" -eq 0 ] && ok || fail "run $l: $wide lines wider than 100 columns"
	"$HDSIM" run "$l" --width 60 >"$tmp/out60" 2>&1
	wide=$(awk 'length($0) > 60' "$tmp/out60" | wc -l)
	[ "$wide" -eq 0 ] && ok || fail "run $l --width 60: $wide lines wider than 60 columns"
	if grep -q "$(printf '\033')" "$tmp/out"; then
		fail "run $l: escape sequences into a pipe"
	else
		ok
	fi

	expect 0 run "$l" --json
	if [ "$have_python" = yes ]; then
		if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "hdsim-run"
assert d["scenarios"] and all(s["makespan_ps"] > 0 for s in d["scenarios"])
for s in d["scenarios"]:
    for sp in s["spans"]:
        assert sp["end_ps"] >= sp["start_ps"] >= 0
        assert 0 <= sp["lane"] < len(s["lanes"])
# every claim holds, but those stated for other profiles than the default
assert all(c["holds"] is True or
           c["detail"].startswith("not checked: it is stated for profile")
           for c in d["claims"])
' "$tmp/out"; then ok; else fail "run $l --json: not the expected JSON"; fi
	fi

	expect 0 run "$l" --plain
	has "$tmp/out" "^At 0" "run $l --plain"
	if grep -q "$(printf '\033')" "$tmp/out"; then
		fail "run $l --plain: escape sequences"
	else
		ok
	fi
done

first=$("$HDSIM" run 2 --json | sed -n 's/.*"scenarios":\[{"scenario":"\([^"]*\)".*/\1/p')
expect 0 run 2 --scenario "$first"
has "$tmp/out" "^Scenario  $first" "--scenario"
shown=$(grep -c '^Scenario  ' "$tmp/out")
[ "$shown" -eq 1 ] && ok || fail "--scenario $first shows $shown scenarios, wanted 1"
expect 2 run 1 --scenario no-such-scenario
has "$tmp/err" "no-such-scenario" "bad scenario"

# --- knobs ---------------------------------------------------------------------
expect 2 run 1 --set no-such-knob=3
has "$tmp/err" "no-such-knob" "bad knob is named"
expect 2 run 1 --set "=="

# --- profiles ----------------------------------------------------------------------
expect 0 profiles
cp "$tmp/out" "$tmp/profiles"
for f in "$HDSIM_SRCDIR"/profiles/*.hdp; do
	p=$(basename "$f" .hdp)
	has "$tmp/profiles" "$p" "profiles lists $p"
done
for f in "$HDSIM_SRCDIR"/profiles/*.hdp; do
	p=$(basename "$f" .hdp)
	expect 0 run 1 --profile "$p"
	has "$tmp/out" "$p" "run 1 --profile $p"
	expect 0 profiles "$p"
done
expect 2 run 1 --profile no-such-profile
has "$tmp/err" "no-such-profile" "bad profile"
expect 2 list --profile no-such-profile

# --- determinism ----------------------------------------------------------------
for l in 1 2 3; do
	"$HDSIM" run "$l" --json >"$tmp/a" 2>&1
	"$HDSIM" run "$l" --json >"$tmp/b" 2>&1
	cmp -s "$tmp/a" "$tmp/b" && ok || fail "run $l twice: different JSON"
	"$HDSIM" run "$l" >"$tmp/a" 2>&1
	"$HDSIM" run "$l" >"$tmp/b" 2>&1
	cmp -s "$tmp/a" "$tmp/b" && ok || fail "run $l twice: different text"
done

# --- hdsim alone, into a pipe: the list and a timeline ------------------------
expect 0
nlessons=$(grep -c '^	lessons/[^ ]*\.hds' "$HDSIM_SRCDIR/Makefile.am")
has "$tmp/out" "Lessons ($nlessons)" "hdsim alone"
has "$tmp/out" "Makespan" "hdsim alone"
has "$tmp/out" "Legend:" "hdsim alone"

# --- colour: never into a pipe, never with NO_COLOR ------------------------------
NO_COLOR=1 "$HDSIM" run 1 >"$tmp/out" 2>&1
if grep -q "$(printf '\033')" "$tmp/out"; then fail "NO_COLOR: escapes"; else ok; fi

# --- width ---------------------------------------------------------------------
expect 0 run 1 --width 140
long=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$tmp/out")
[ "$long" -ge 120 ] && ok || fail "--width 140: widest line is $long"

# --- --real: measured on a GPU, or a clear error and no fake output -------------
"$HDSIM" --real run 1 >"$tmp/out" 2>"$tmp/err"
rc=$?
case $rc in
0)	has "$tmp/out" "measured" "--real run 1 on a GPU" ;;
1)	ok
	has "$tmp/err" "GPU" "--real without a GPU"
	[ -s "$tmp/out" ] && fail "--real wrote output without a GPU" || ok
	expect 1 calibrate
	expect 1 doctor
	# Without a GPU nothing is stored: the database is not even created.
	expect 1 --real --db "$tmp/none.db"
	has "$tmp/err" "GPU" "--real --db without a GPU"
	[ -e "$tmp/none.db" ] && fail "--real created a database without a GPU" || ok
	expect 1 calibrate --db "$tmp/none.db"
	[ -e "$tmp/none.db" ] && fail "calibrate created a database without a GPU" || ok ;;
*)	fail "--real run 1 exited $rc, wanted 0 (a GPU) or 1 (none)" ;;
esac

# --- progress: a learner's answers, listed and reset ------------------------------
db="$tmp/progress.db"
expect 0 progress --db "$db" --learner ada
has "$tmp/out" "No answers recorded for ada yet" "progress without a database"
[ -e "$db" ] && fail "progress created a database" || ok
expect 0 progress --reset --db "$db" --learner ada
has "$tmp/out" "^0 answers removed for ada" "progress --reset on nothing"
[ -e "$db" ] && fail "progress --reset created a database" || ok
mkdir "$tmp/folder.db"
expect 2 progress --db "$tmp/folder.db"
has "$tmp/err" "folder.db: error: is a folder, not a database file" "progress --db DIR"
expect 2 progress --reset --db "$tmp/folder.db"
expect 2 progress --learner "" --db "$db"
has "$tmp/err" "learner needs a name" "progress --learner ''"
expect 2 progress 1 2
has "$tmp/err" "usage: hdsim progress" "progress with two lessons"
expect 2 run 1 --learner ada
has "$tmp/err" "does not apply" "--learner on run"
expect 2 list --reset
# Whose progress: --learner, else $HDSIM_LEARNER, else $USER, else "learner".
HDSIM_LEARNER=grace USER=lin "$HDSIM" progress --db "$db" >"$tmp/out" 2>&1
has "$tmp/out" "for grace yet" "HDSIM_LEARNER"
(unset HDSIM_LEARNER; USER=lin "$HDSIM" progress --db "$db") >"$tmp/out" 2>&1
has "$tmp/out" "for lin yet" "USER"
(unset HDSIM_LEARNER USER; "$HDSIM" progress --db "$db") >"$tmp/out" 2>&1
has "$tmp/out" "for learner yet" "no name in the environment"

# Answers written the way the lesson browser stores them (needs the sqlite3 shell).
if command -v sqlite3 >/dev/null 2>&1; then
	: >"$db"    # an empty file is an empty database: hdsim gives it its schema
	expect 0 progress --reset --db "$db" --learner ada
	sqlite3 "$db" "INSERT INTO learners (name) VALUES ('ada'), ('bob');
	  INSERT INTO progress (learner_id, lesson, question, answer, correct, confidence,
	    seconds, hints, version) VALUES
	  (1, 'pinned-vs-pageable', 'faster', 'pinned', 1, 4, 12.5, 0, 't'),
	  (1, 'pinned-vs-pageable', 'overlap', 'no', 0, 2, 75, 1, 't'),
	  (1, 'two-streams', 'speedup', '1.8x', 1, NULL, 3, 0, 't'),
	  (1, 'pinned-vs-pageable', 'overlap', 'yes', 1, 5, 4, 2, 't'),
	  (2, 'two-streams', 'speedup', '2x', 0, 1, 3, 0, 't');" &&
		ok || fail "sqlite3 could not add answers"
	expect 0 progress --db "$db" --learner ada
	has "$tmp/out" "^Answers of ada" "progress header"
	has "$tmp/out" "^  overlap  *yes  *right  *5/5  *4.0 s  *2  " "progress row"
	has "$tmp/out" "^  overlap  *no  *wrong  *2/5  *1m15s  *1  " "progress: an earlier try"
	has "$tmp/out" "^  speedup  *1.8x  *right  *-  " "progress: no confidence"
	has "$tmp/out" "^  2 answered: 2 right, 0 wrong (.*3 answers in all)" "lesson summary"
	has "$tmp/out" "^  1 answered: 1 right, 0 wrong$" "second lesson summary"
	lacks "$tmp/out" "2x" "another learner's answer"
	# A lesson by number, like everywhere else.
	expect 0 progress 1 --db "$db" --learner ada
	lacks "$tmp/out" "two-streams" "progress 1 shows lesson 1 only"
	expect 0 progress --reset two-streams --db "$db" --learner ada
	has "$tmp/out" "^1 answer removed for ada (lesson two-streams)" "reset one lesson"
	expect 0 progress --reset --db "$db" --learner ada
	has "$tmp/out" "^3 answers removed for ada (all lessons)" "reset all"
	expect 0 progress --db "$db" --learner ada
	has "$tmp/out" "No answers recorded for ada yet" "progress after reset"
	expect 0 progress --db "$db" --learner bob
	has "$tmp/out" "2x  *wrong" "another learner keeps theirs"
else
	echo "cli.sh: no sqlite3 shell: progress listing with answers not tested"
fi

# --- lint ----------------------------------------------------------------------
expect 0 lint "$HDSIM_SRCDIR"/lessons/*.hds
has "$tmp/out" ": ok" "lint"
printf 'hdsim 1\nlesson x\ntitle "x"\nscenario s "s"\n  frobnicate\nend\n' >"$tmp/bad.hds"
expect 2 lint "$tmp/bad.hds"
has "$tmp/err" "bad.hds:5:" "lint names file:line"
expect 2 lint "$tmp/missing.hds"

# --- a profile written by hand: the driver's figures, bad and switched off -----
# A prefetch of pages already on the GPU costs um.prefetch_stay and its walk
# over them at um.prefetch_walk (4 us and 512 MiB at 0.55 TB/s, 980 us; with
# both 0, pcie.latency's 2.50 us), a prefetch to the host
# runs at um.prefetch_d2h_rate (10.3 GB/s), cudaMalloc/cudaFree of 1 GiB map
# and unmap its bytes (68 us and 1 GiB at 11 TB/s); 0 switches each off.  The
# figures are written here, not taken from h100-sxm, whose measured figures
# move when more calibrations come in.
printf 'hdsim 1\nlesson pw\ntitle "pw"\nscenario resident "resident"\n  buffer m managed 512MiB\n  buffer d device 1GiB\n  alloc d\n  prefetch m to device\n  prefetch m to device\n  prefetch m to host\n  sync device\n  free d\nend\n' >"$tmp/walk.hds"
printf 'hdsim-profile 1\nbase = h100-sxm\nname = "on"\num.prefetch_walk = 0.55 TB/s\num.prefetch_stay = 4 us\num.prefetch_d2h_rate = 10.3 GB/s\napi.malloc = 68 us\napi.malloc_rate = 11 TB/s\n' >"$tmp/on.hdp"
expect 0 run "$tmp/walk.hds" --profile "$tmp/on.hdp"
has "$tmp/out" "prefetch m .*  980 us  *- " "a resident prefetch walks its pages"
has "$tmp/out" "prefetch m .* 512 MiB  10.3 GB/s" "a prefetch to the host at its own rate"
has "$tmp/out" "alloc d .* 166 us" "cudaMalloc of 1 GiB maps its bytes"
printf 'hdsim-profile 1\nbase = h100-sxm\nname = "off"\num.prefetch_walk = 0 TB/s\num.prefetch_stay = 0 us\num.prefetch_d2h_rate = 0 GB/s\napi.malloc = 68 us\napi.malloc_rate = 0 TB/s\napi.free_rate = 0 TB/s\n' >"$tmp/off.hdp"
expect 0 run "$tmp/walk.hds" --profile "$tmp/off.hdp"
has "$tmp/out" "prefetch m .* 2.50 us  *- " "no walk with um.prefetch_walk 0, pcie.latency with um.prefetch_stay 0"
lacks "$tmp/out" "10.3 GB/s" "no rate of its own to the host with 0"
has "$tmp/out" "alloc d .* 68.0 us" "no per-byte mapping with api.malloc_rate 0"
printf 'hdsim-profile 1\nbase = h100-sxm\nname = "bad"\num.prefetch_walk = -1 TB/s\n' >"$tmp/bad1.hdp"
expect 2 run "$tmp/walk.hds" --profile "$tmp/bad1.hdp"
has "$tmp/err" "bad1.hdp:4:20: error: um.prefetch_walk must not be negative" "a negative walk rate"
printf 'hdsim-profile 1\nbase = h100-sxm\nname = "bad"\napi.free_rate = 3 us\n' >"$tmp/bad2.hdp"
expect 2 run "$tmp/walk.hds" --profile "$tmp/bad2.hdp"
has "$tmp/err" "api.free_rate expects a rate such as 50 GB/s, found a time '3 us'" "a time for a rate"

# --- copies of managed memory, from outside ---------------------------------------
# As the driver does, a copy with managed memory on the host side is staged
# like a pageable one: cudaMemcpyAsync waits for its stream's 1 ms kernel,
# then stages 16 MiB and waits for the last chunk's DMA (h100-sxm: the
# call takes 3.32 ms, 3.28 returning after its last CPU copy); after a prefetch
# to the GPU the first copy faults 16 MiB over to the host to read first,
# the second does not (the pages stay on the GPU: a kernel after them
# faults nothing).
printf 'hdsim 1\nlesson um\ntitle "um"\nscenario back "back"\n  buffer m managed 64MiB\n  buffer d device 64MiB\n  stream s nonblocking\n  kernel spin 1000us on s\n  copy m -> d 16MiB async on s\n  prefetch m to device\n  sync device\n  copy m -> d 16MiB\n  copy m -> d 16MiB\n  kernel memory m\n  sync device\nend\n' >"$tmp/um.hds"
expect 0 run "$tmp/um.hds" --profile h100-sxm --plain
has "$tmp/out" "calls cudaMemcpyAsync for 'copy m -> d on s' (3.32 ms)" "an async copy of managed memory waits for its stream and its DMA"
has "$tmp/out" "the host faults on managed memory and brings 16 MiB to the host for 'copy m -> d' until" "the first copy faults its pages over"
has "$tmp/out" "pageable (or managed) memory is staged" "the blocked reason names managed memory"
test "$(grep -c "faults on managed memory" "$tmp/out")" = 1 && ok || fail "only the first copy faults"

# A small managed buffer freed beside another small live one comes back
# from the driver's heap with its pages mapped: the second cudaMallocManaged
# of 623 KB costs a small cudaMalloc and a memset (h200-sxm: 26.3 us), the
# first, and every one with no other managed buffer alive, the full 342 us
# (on a lent H200: 26 us a round against 410 alone, bench/probe/umrealloc.hds).
printf 'hdsim 1\nlesson heap\ntitle "heap"\nscenario again "again"\n  buffer m1 managed 26KB\n  buffer m2 managed 623KB\n  repeat 2\n    alloc m2\n    free m2\n  end\nend\nscenario alone "alone"\n  buffer m2 managed 623KB\n  repeat 2\n    alloc m2\n    free m2\n  end\nend\n' >"$tmp/heap.hds"
expect 0 run "$tmp/heap.hds" --profile h200-sxm --plain
test "$(grep -c "calls cudaMallocManaged for 'alloc m2' (342 us)" "$tmp/out")" = 3 && ok ||
	fail "the first alloc beside a live buffer, and both alone, pay in full"
has "$tmp/out" "calls cudaMallocManaged for 'alloc m2' (26.3 us)" "a managed block reallocated beside a live one comes from the heap"

# A host-to-host cudaMemcpy waits for the legacy stream, so for a blocking
# stream's kernel (here until 1.019 ms: the blocking stream's 1 ms spin,
# which runs beside the other stream's, and the wake-up), not for a
# non-blocking stream's.
printf 'hdsim 1\nlesson hh\ntitle "hh"\nscenario h2h "h2h"\n  buffer g pageable 4KiB\n  buffer p pinned 4KiB\n  stream b\n  stream n nonblocking\n  kernel spin 1000us on n\n  copy g -> p\n  kernel spin 1000us on b\n  copy g -> p\n  sync device\nend\n' >"$tmp/hh.hds"
expect 0 run "$tmp/hh.hds" --profile h100-sxm --plain
has "$tmp/out" "At 0.006 ms the host works for .*: memcpy HtoH" "a host copy does not wait for a non-blocking stream"
has "$tmp/out" "the host waits (sync copy) until 1.019 ms" "a host copy waits for a blocking stream"
# After `default-stream per-thread` cudaMemcpy goes to the per-thread
# stream, which does not wait for a blocking stream's kernel.
printf 'hdsim 1\nlesson hp\ntitle "hp"\nscenario h2h "h2h"\n  default-stream per-thread\n  buffer g pageable 4KiB\n  buffer p pinned 4KiB\n  stream b\n  kernel spin 1000us on b\n  copy g -> p\n  sync device\nend\n' >"$tmp/hp.hds"
expect 0 run "$tmp/hp.hds" --profile h100-sxm --plain
has "$tmp/out" "At 0.006 ms the host works for .*: memcpy HtoH" "a per-thread host copy does not wait for a blocking stream"

# A sync of the legacy default stream waits for a blocking stream's work
# (the host's work after it starts at 1.012 ms), not for a non-blocking
# stream's (at 0.006 ms).
printf 'hdsim 1\nlesson ls\ntitle "ls"\nscenario blk "blk"\n  stream b\n  kernel spin 1000us on b\n  sync default\n  host 1us "after"\nend\nscenario nb "nb"\n  stream n nonblocking\n  kernel spin 1000us on n\n  sync default\n  host 1us "after"\nend\n' >"$tmp/ls.hds"
expect 0 run "$tmp/ls.hds" --profile h100-sxm --plain
has "$tmp/out" "At 1.012 ms the host works for 1.00 us: after" "a legacy-stream sync waits for a blocking stream"
has "$tmp/out" "At 0.006 ms the host works for 1.00 us: after" "a legacy-stream sync does not wait for a non-blocking stream"
# zeroed LESSON KEY WITH WITHOUT: LESSON run with h200-sxm shows WITH, and
# with a profile file based on it that sets KEY to 0 shows WITHOUT.
zeroed() {
	printf 'hdsim-profile 1\nbase = h200-sxm\nname = "zeroed"\n%s = 0 us\n' "$2" >"$tmp/zeroed.hdp"
	expect 0 run "$1" --profile h200-sxm --plain
	has "$tmp/out" "$3" "h200-sxm's $2 is paid"
	expect 0 run "$1" --profile "$tmp/zeroed.hdp" --plain
	has "$tmp/out" "$4" "$2 = 0 in a profile file takes it away"
}
# A read lands in pageable memory: it pays api.memcpy_pageable (2.1 us on
# h200-sxm).
printf 'hdsim 1\nlesson rd\ntitle "rd"\nscenario rd "rd"\n  buffer d device 4B\n  read d\nend\n' >"$tmp/rd.hds"
zeroed "$tmp/rd.hds" api.memcpy_pageable "The makespan is 10.3 us" "The makespan is 8.23 us"
# An idle cudaDeviceSynchronize costs api.sync_device (0.79 us on
# h200-sxm), more than an idle stream sync's api.sync (0.495 us), which it
# falls back to when set to nothing.
printf 'hdsim 1\nlesson sd\ntitle "sd"\nscenario sd "sd"\n  sync device\n  sync device\n  host 1us "after"\nend\n' >"$tmp/sd.hds"
zeroed "$tmp/sd.hds" api.sync_device "At 1.580 us the host works for 1.00 us: after" \
	"At 0.990 us the host works for 1.00 us: after"
expect 0 profiles h200-sxm
has "$tmp/out" "api.memcpy_pageable  2.1 us" "profiles shows api.memcpy_pageable"
has "$tmp/out" "api.sync_device      0.79 us" "profiles shows api.sync_device"

# Kernels on two streams run side by side while the SMs have room and share
# what they draw on: two one-block 1 ms spins at once, then a full grid of
# compute (0.96 ms) beside a full grid of memory traffic (0.37 ms), 1.97 ms
# in all (the rule that gave each kernel every SM ran all four in turn,
# 3.35 ms).
printf 'hdsim 1\nlesson side\ntitle "side"\nscenario side "side"\n  stream s1 nonblocking\n  stream s2 nonblocking\n  buffer d device 1GiB\n  kernel spin 1000us on s1\n  kernel spin 1000us on s2\n  kernel compute 50GFLOP on s1\n  kernel memory d on s2\n  sync device\nend\n' >"$tmp/side.hds"
expect 0 run "$tmp/side.hds" --profile h100-sxm --plain
has "$tmp/out" "At 0.012 ms stream 3 (s2) runs kernel spin" "a second spin kernel runs beside the first"
has "$tmp/out" "At 1.014 ms stream 3 (s2) runs kernel memory .* until 1.388 ms" "a memory kernel runs beside a compute kernel"
has "$tmp/out" "The makespan is 1.97 ms" "kernels side by side end with the longest"

# --- HDSIM_LESSON_PATH ------------------------------------------------------------
mkdir "$tmp/lessons"
sed 's/^lesson .*/lesson my-copy-lesson/' "$HDSIM_SRCDIR/lessons/04-pinned-vs-pageable.hds" \
	>"$tmp/lessons/my.hds"
HDSIM_LESSON_PATH="$tmp/lessons" "$HDSIM" list >"$tmp/out" 2>&1
has "$tmp/out" "my-copy-lesson" "HDSIM_LESSON_PATH"
HDSIM_LESSON_PATH="$tmp/lessons" "$HDSIM" run my-copy-lesson >"$tmp/out" 2>&1 && ok ||
	fail "run of a lesson from HDSIM_LESSON_PATH"

# --- ranks: busBw beside algBw, and a deadlock shown as the lesson's result -----
printf 'hdsim 1\nlesson r\ntitle "r"\nscenario ar "ar"\n  ranks 4\n  buffer d device 64MiB\n  ar: allreduce d\n  sync device\nend\nscenario dl "dl"\n  ranks 2\n  expect deadlock\n  buffer d device 1MiB\n  send d to rank + 1\n  recv d from rank - 1\n  sync device\nend\n' >"$tmp/ranks.hds"
expect 0 run "$tmp/ranks.hds"
has "$tmp/out" "busBw" "busBw of a collective"
has "$tmp/out" "(algBw x 1.5 on 4 ranks, as nccl-tests)" "all-reduce bus factor"
has "$tmp/out" "Result: deadlock at" "deadlock as the result"
has "$tmp/out" "which waits for rank 1 to post the matching ncclRecv" "who waits for what"

finish cli.sh
