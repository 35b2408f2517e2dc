#!/bin/sh
# tui.sh - headless end-to-end test of the lesson browser in tmux: browse,
# open a lesson, page through it, predict (the run is locked until then),
# compare its scenarios on one axis, the legend, play to the end, read the
# explanation, help, resize (80x24, 200x60, too small), search, resume,
# quit, SIGTERM, idle gaps of a loop shown and zoomed into, managed pages
# arriving group by group, the ring's pieces filling, folded ranks
# scrolled to at 80x24, ranks on their nodes with a transfer crossing the
# network; the terminal
# must be restored and the answers stored.  Without a terminal `hdsim` must
# still print text.
#
# Run by `make check` with $HDSIM set; exits 77 (skipped) without it or
# without tmux.
# shellcheck disable=SC2015  # "test && ok || fail" is safe: ok never fails
set -u

name=tui.sh
. "$(dirname "$0")/tmux-lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hdsim-tui.XXXXXX") || exit 99
sock=hdsimtest$$-0
nsock=0
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
unset HDSIM_LESSON_PATH

# bar_len NAME: columns of scenario NAME's bar in the compare box
bar_len() {
	screen | grep -F "│$1 " | head -n 1 | sed "s/^.*│$1 *//; s/|.*//" |
		tr -d '\n' | LC_ALL=C.UTF-8 wc -m
}

# start [ARGS]: run hdsim in a fresh 100x30 pane; the shell around it
# reports hdsim's exit status and keeps the pane open.
start() {
	tmux -L "$sock" kill-server 2>/dev/null
	nsock=$((nsock + 1))
	sock=hdsimtest$$-$nsock
	tmux -L "$sock" -f /dev/null new-session -d -x 100 -y 30 \
		"env HDSIM_LEARNER=t XDG_DATA_HOME=$tmp LANG=C.UTF-8 TERM=$term \
		${runner:-} $HDSIM --db $tmp/db $*; echo hdsim-exit=\$?; exec sleep 600"
}

# ---- the browser ----------------------------------------------------------
# A calibrated profile in the learner's profile folder, for P to reach.
mkdir -p "$tmp/hdsim/profiles"
printf 'hdsim-profile 1\nbase = h100-sxm\nname = "calibrated-test"\n' \
	>"$tmp/hdsim/profiles/calibrated-test.hdp"
start
wait_for "Pinned vs pageable: the staging copy"
has "Moving data"
has "Streams and overlap"
has "Two streams: overlap copy and compute"
has "The default stream is not just stream 0"

# Idle in the browser, the TUI waits for a key and uses no CPU: at most two
# clock ticks (20 ms at the usual 100 Hz) of CPU over two seconds.
pid=$(tmux -L "$sock" display -p '#{pane_pid}')
if [ -n "$pid" ] && [ -r "/proc/$pid/stat" ]; then
	before=$(cpu_ticks "$pid")
	sleep 2
	after=$(cpu_ticks "$pid")
	[ -n "$before" ] && [ -n "$after" ] && [ $((after - before)) -le 2 ] && ok ||
		fail "idle browser used CPU: $before -> $after clock ticks in 2 s"
fi

# ---- pinned-vs-pageable, found by search: pages, prediction, run, explanation --
keys /
keys p i n n e d - v s
wait_for "/pinned-vs_"
lacks "Two streams: overlap copy and compute"
keys Enter Enter
wait_for "(page 1 of 2)"
keys Right
wait_for "(page 2 of 2)"
keys Left
wait_for "(page 1 of 2)"
keys Space
wait_for "(page 2 of 2)"
keys Space
wait_for "predict before you run (question 1 of 3)"
has "Which copy finishes first?"
has "The run stays locked until you answer."
has "The run of scenario 'pageable'"
lacks "CUDA API"
keys h
wait_for "Hint 1: Look at which rows"
keys b
wait_for "How sure are you?"
has "Your answer: b) The copy from pageable memory"
keys 3
# every question is asked before any run
wait_for "(question 2 of 3)"
lacks "CUDA API"
keys b
wait_for "How sure are you?"
keys Enter
wait_for "(question 3 of 3)"
keys 4 2 BSpace m s
wait_for "4ms_"
keys Enter
wait_for "How sure are you?"
keys 5
wait_for "CUDA API"
has "Memcpy HtoD"
has "Host thread"
# compare: every scenario on one time axis, pageable (31 ms) at least 5x as
# long as pinned (4.8 ms); c again closes it
keys c
wait_for "Compare: one time axis"
pinned=$(bar_len pinned)
pageable=$(bar_len pageable)
[ "$pinned" -gt 0 ] && [ "$pageable" -ge $((5 * pinned)) ] && ok ||
	fail "compare: pageable's bar is $pageable columns, pinned's $pinned"
keys c
sleep 0.3
lacks "Compare: one time axis"
# the legend, from the table of looks
keys L
wait_for "Legend (L)"
has "copy host to device"
keys L
sleep 0.3
lacks "Legend (L)"
keys End
wait_for "Explanation"
has "Not quite."
has "staging"

# help overlay, closed by any key
keys '?'
wait_for "Keys (any key closes)"
has "play / pause"
keys x
sleep 0.3
lacks "Keys (any key closes)"
has "Explanation"

# resizing at any moment
resize 80 24
sleep 0.5
wait_for "Explanation"
lacks "terminal too small"
resize 200 60
wait_for "Explanation"
lacks "terminal too small"
resize 40 10
wait_for "terminal too small:"
has "need 80x24, have 40x10"
resize 100 30
wait_for "Explanation"
lacks "terminal too small"

# knobs: a change re-runs at once, the run before is the ghost
keys k
wait_for "Knobs ("
has "256 MiB"
keys Right
wait_for "512 MiB"
has "before "
keys Left
wait_for "256 MiB"
keys k
sleep 0.3
lacks "Knobs ("
has "Explanation"
# measured beside predicted: none in a fresh database
keys m
wait_for "no measured runs of pageable yet"

# question 2's run and explanation, question 3's (an estimate), the summary
keys Enter
wait_for "scenario 2 of 3: pageable"
keys End
wait_for "Right. You chose b) Only after the last chunk"
keys Enter
wait_for "scenario 1 of 3: pinned"
keys End
wait_for "the model gives"
keys Enter
wait_for "lesson 4 done, 2 of 3 predictions right"
has "Next: lesson 5,"
keys q
wait_for "partly right: 3/3 answered, 2 right, 1 wrong"
# a finished lesson with a wrong answer is marked partly right, not failed
has "◐  4  Pinned vs pageable"

# a new search (the old one erased), then open lesson 7 and answer its first question
keys /
keys BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace
keys l e g a c y - d e f
wait_for "/legacy-def_"
lacks "Pinned vs pageable"
has "The default stream is not just stream 0"
keys Enter Enter
wait_for "The default stream is not just stream 0"
wait_for "(page 1 of"
keys PageDown PageDown PageDown PageDown
wait_for "(question 1 of 2)"
keys a Enter
# an ORDER question: letters in order, checked before it is graded
wait_for "(question 2 of 2)"
keys b a Enter
wait_for "type each of the 3 letters once"
keys c Enter
wait_for "How sure are you?"
has "Your answer: b) k1 (stream s), then a) k2 (default stream), then c) k3"
keys Enter
wait_for "CUDA API"
keys End
wait_for "Explanation"
keys Enter
keys End
wait_for "Explanation"
has "Right: b) k1 (stream s), then a) k2 (default stream), then c) k3"
# playback keys on a playing run
keys Space Home Right Right + + - r Tab
sleep 0.3
has "scenario"
# another hardware profile: re-run, the run before as the ghost
lacks "before "
keys P
wait_for "before "
has "profile "
# after the five built-ins, P reaches the learner's calibrated profile
keys P P P P
wait_for "profile calibrated-test"
keys q
wait_for "Streams and overlap"
keys q
wait_for "hdsim-exit=0"
lacks "Pinned vs pageable"
restored

# ---- the answers were stored ------------------------------------------------
"$HDSIM" progress --db "$tmp/db" --learner t >"$tmp/progress" 2>&1 && ok ||
	fail "hdsim progress failed"
for q in faster returns estimate total order; do
	grep -q "$q" "$tmp/progress" && ok || fail "progress lacks question $q"
done

# ---- resume on the lesson answered last; SIGTERM restores the terminal ------
start
wait_for "Pinned vs pageable"
keys Enter
wait_for "The default stream is not just stream 0"
wait_for "exploring lesson 7"
pane=$(tmux -L "$sock" display -p '#{pane_pid}')
pid=$(ps -o pid= --ppid "$pane" | head -n 1 | tr -d ' ')
if [ -n "$pid" ]; then
	kill -TERM "$pid"
	wait_for "hdsim-exit=143"
	restored
else
	fail "no hdsim process under the pane"
fi

# ---- monochrome, reduced motion: still usable; Ctrl-C restores the terminal --
start --no-color --reduced-motion
wait_for "Pinned vs pageable"
keys Enter PageDown PageDown PageDown PageDown a Enter
wait_for "(reduced motion)"
keys C-c
wait_for "hdsim-exit=130"
restored

# ---- once under valgrind: no memory errors (exit 9 if there are) ----------
# (not for a sanitizer build: valgrind cannot run those)
if command -v valgrind >/dev/null 2>&1 && ! ldd "$HDSIM" 2>/dev/null | grep -q libasan; then
	runner="valgrind -q --error-exitcode=9 --log-file=$tmp/valgrind.log"
	patience=300
	start
	wait_for "Pinned vs pageable"
	keys Enter
	wait_for "exploring lesson 7"
	keys End k Right k A
	wait_for "question 1 of"
	keys q q
	wait_for "hdsim-exit=0" || sed 's/^/  valgrind| /' "$tmp/valgrind.log"
	runner=
	patience=50
fi

# ---- m: a measured run beneath the predicted one -----------------------------
# seed_measured stores a run simulated on another profile as "measured"
seed=$(dirname "$HDSIM")/tests/seed_measured
if [ -x "$seed" ]; then
	"$seed" "$tmp/mdb" "$HDSIM_SRCDIR/lessons/04-pinned-vs-pageable.hds" pageable \
		a100-pcie >/dev/null && ok || fail "seed_measured failed"
	tmux -L "$sock" kill-server 2>/dev/null
	nsock=$((nsock + 1))
	sock=hdsimtest$$-$nsock
	tmux -L "$sock" -f /dev/null new-session -d -x 100 -y 30 \
		"env HDSIM_LEARNER=m XDG_DATA_HOME=$tmp LANG=C.UTF-8 TERM=$term \
		$HDSIM --db $tmp/mdb; echo hdsim-exit=\$?; exec sleep 600"
	wait_for "Pinned vs pageable: the staging copy"
	keys /
	keys p i n n e d - v s
	keys Enter Enter
	wait_for "(page 1 of 2)"
	keys Space Space
	wait_for "predict before you run (question 1 of 3)"
	keys b 3 b 3 1 m s Enter 3
	wait_for "CUDA API"
	keys End
	wait_for "Explanation"
	keys m
	# the measured makespan with its repeats' band, whether the prediction
	# is inside it; the band in the status line beside the makespan too
	wait_for "over 5 repeats) vs predicted"
	has "error "
	has "side the band"
	has "measured "
	has "; band "
	keys m
	wait_for "measured run hidden"
	keys q q q
	wait_for "hdsim-exit=0"
else
	fail "no seed_measured next to hdsim"
fi

# ---- idle time shows: a 100-step loop of a kernel then a small read -------
# The GPU idles while each step's read goes back to the host: the Compute
# row is partly busy cells, and zoomed in it shows blank gaps between kernels.
mkdir -p "$tmp/loop"
cat >"$tmp/loop/loop.hds" <<'EOF'
hdsim 1
lesson item-loop
title "An item() loop"
part "Zz tests"
order 99
page "Loop"
| A kernel, then a 4-byte read, a hundred times.
end
scenario loop "a kernel then .item() per step"
  buffer x device 1MiB
  buffer loss device 4B
  repeat 100
    step: kernel spin 30us
    item: read loss 4B
  end
end
EOF
tmux -L "$sock" kill-server 2>/dev/null
nsock=$((nsock + 1))
sock=hdsimtest$$-$nsock
tmux -L "$sock" -f /dev/null new-session -d -x 100 -y 30 \
	"env HDSIM_LEARNER=t XDG_DATA_HOME=$tmp HDSIM_LESSON_PATH=$tmp/loop LANG=C.UTF-8 \
	TERM=$term $HDSIM --db $tmp/ldb; echo hdsim-exit=\$?; exec sleep 600"
wait_for "Pinned vs pageable"
keys /
keys i t e m - l o o p
wait_for "/item-loop_"
keys Enter Enter
wait_for "(page 1 of 1)"
keys Space
wait_for "Compute"
keys End
wait_for "makespan"
row=$(screen | grep '^Compute' | sed 's/^Compute *//')
full=$(printf '%s' "$row" | tr -cd '#' | wc -c)
cells=$(printf '%s' "$row" | LC_ALL=C.UTF-8 wc -m)
[ "$cells" -gt 40 ] && [ "$full" -lt $((cells / 2)) ] && ok ||
	fail "Compute row of the item() loop drawn solid: $full of $cells cells full: $row"
keys ] ] ] ] ]
wait_for "showing "
screen | grep '^Compute' | grep -qE '#[^#]* [^#]*#' && ok ||
	fail "zoomed in, no gap between kernels in the Compute row:
$(screen | grep '^Compute')"
keys q q q
wait_for "hdsim-exit=0"

# ---- --plain on a terminal: the plain mode, no browser ---------------------
# (tests/plain.sh walks a lesson through it)
start --plain
wait_for "Type a lesson's number"
has "plain mode"
lacks "Up/Down move"
keys quit Enter
wait_for "hdsim-exit=0"

# ---- a terminal curses does not know: text instead ------------------------
# (ncurses keeps a small allocation when newterm fails: no leak check here)
tmux -L "$sock" kill-server 2>/dev/null
nsock=$((nsock + 1))
sock=hdsimtest$$-$nsock
tmux -L "$sock" -f /dev/null new-session -d -x 100 -y 30 \
	"env HDSIM_LEARNER=t TERM=no-such-terminal-hdsim ASAN_OPTIONS=detect_leaks=0 \
	$HDSIM --db $tmp/db; \
	echo hdsim-exit=\$?; exec sleep 600"
wait_for "hdsim-exit=0"
has "Next: 'hdsim show 1'"

# ---- without a terminal: text as before ------------------------------------
"$HDSIM" --db "$tmp/db" </dev/null >"$tmp/out" 2>&1 && ok || fail "hdsim to a pipe failed"
grep -q "Pinned vs pageable" "$tmp/out" && ok || fail "hdsim to a pipe lists no lessons"
grep -q "$(printf '\033')" "$tmp/out" && fail "escape sequences in piped output" || ok

# ---- the lesson flow: every question before any run, words not ids -------
start
wait_for "Pinned vs pageable"
keys /
keys c o l l e c t i v e s
wait_for "/collectives_"
keys Enter Enter
wait_for "(page 1 of"
keys End Space
wait_for "predict before you run (question 1 of 3)"
has "The run of scenario 'ring8'"
lacks "CUDA API"
keys b
wait_for "Your answer: b) Nearly twice as long"
keys 3
wait_for "predict before you run (question 2 of 3)"
has "The run of scenario 'pair'"
lacks "CUDA API"
keys a Enter
wait_for "predict before you run (question 3 of 3)"
lacks "CUDA API"
keys 3 7 0 G B / s Enter
wait_for "How sure are you?"
keys Enter
wait_for "CUDA API"
has "scenario 2 of 2: ring8"
has "Next: End: the explanation"
keys End
wait_for "Right. You chose b) Nearly twice as long"
keys n
wait_for "scenario 1 of 2: pair"
keys End
wait_for "Right. You chose a) About the same time"
keys n End
wait_for "the model gives"
keys n
# the summary: predictions against the runs, the next lesson offered
wait_for "lesson 17 done, 3 of 3 predictions right"
has "Your predictions against the runs:"
has "Next: lesson 18, A data-parallel training step"
keys q
wait_for "done: 3/3 answered"
# a finished lesson opens straight into explore mode; A asks again
keys Enter
wait_for "exploring lesson 17"
has "scenario 1 of 2: pair"
keys Tab
wait_for "scenario 2 of 2: ring8"
keys A
wait_for "predict before you run (question 1 of 3)"
# answered again having seen the runs: stored as seen, the first was not
keys b Enter
wait_for "predict before you run (question 2 of 3)"
keys p
wait_for "(page 1 of"
keys q
wait_for "done: 3/3 answered, 3 right, 0 wrong"
# the progress table by id (its second column), oldest first: seen is its
# next-to-last column
seen=$("$HDSIM" export --format csv --table progress --db "$tmp/db" --learner t |
	grep ',collectives,cost,' | sort -t, -k2,2n | awk -F, '{ print $(NF - 1) }' |
	tr '\n' ' ')
[ "$seen" = "no yes " ] && ok ||
	fail "the attempts at collectives/cost are stored as seen '$seen', not 'no yes '"

# ---- lesson 1: cpu typed as long as t, and its claims hold -----------------
keys /
keys h o s t - a n d
wait_for "/host-and_"
keys Enter Enter
wait_for "(page 1 of"
keys End Space
wait_for "(question 1 of 2)"
keys b c a Enter Enter b Enter
wait_for "CUDA API"
keys k
wait_for "Knobs ("
has "cpu        2.00 ms"
keys c p u Space = Space 9 m s Enter
wait_for "cpu=9ms is out of range: knob cpu goes from 100 us to 5.00 ms"
keys c p u Space = Space 5 m s Enter
wait_for "cpu        5.00 ms"
has "t          5.00 ms"
has "With these values 6 of 6 claims hold"
has "[holds] The host's work hides under the kernel: 'queue' takes about t"
keys Left
wait_for "cpu        2.00 ms"
keys q q
wait_for "done: 2/2 answered, 2 right, 0 wrong"

# ---- lesson 6: more pairs, the same work in smaller chunks: not slower ----
keys /
keys t w o - s t r
wait_for "/two-str_"
keys Enter Enter
wait_for "(page 1 of"
keys End Space
wait_for "(question 1 of 2)"
keys b Enter b Enter
wait_for "scenario 2 of 3: two-streams"
keys k Down Down
wait_for "Knobs ("
has "work       320 GFLOP"
keys Up Right
wait_for "pairs      8 "
has "(-"
lacks "(+"
has "With these values 3 of 3 claims hold"
keys Right
wait_for "pairs      16 "
has "(-"
keys q q q
wait_for "hdsim-exit=0"

# ---- ops without a label go by their statement, never a line number -------
"$HDSIM" run unified-memory --scenario faults --plain >"$tmp/plain" 2>&1 && ok ||
	fail "hdsim run unified-memory --plain failed"
grep -qF "cudaStreamSynchronize for 'sync s'" "$tmp/plain" && ok ||
	fail "the narration does not name 'sync s'"
grep -q "on line [0-9]" "$tmp/plain" && fail "the narration names a line number" || ok

# ---- moving diagrams: each stream a queue, the collective on its ring ------
# Lesson 1 (explored, as its questions are answered): one event in, the host
# has launched the kernel and works on while the kernel waits in its queue.
start
wait_for "Pinned vs pageable"
keys /
keys h o s t - a n d
wait_for "/host-and_"
keys Enter Enter
wait_for "exploring lesson 1"
keys Home Right
wait_for "queue 1: [k]"
has "running"
has "op 2 of 3"
screen | grep -qE '^│ work +│' && ok || fail "the Host box does not show the host in 'work'"
keys Right
wait_for "queue 1: ▶k"
keys End
wait_for "Stream 0 (default) idle"
keys q q
wait_for "hdsim-exit=0"

# Lesson 13's faults: managed pages arrive group by group while the first
# kernel stalls.  Stepping event by event, the fault counter rises in steps
# long before the end; the PCIe row carries transfers all along the stall
# (no idle stretch, then one labelled bulk transfer at the end).
counter() {
	screen | sed -n 's/.*faults: \([0-9][0-9]*\) groups.*/\1/p' | head -n 1
}
start
wait_for "Pinned vs pageable"
keys /
keys u n i f i e d
wait_for "/unified_"
keys Enter Enter
wait_for "(page 1 of"
keys End Space
wait_for "(question 1 of 2)"
keys b Enter
wait_for "(question 2 of 2)"
keys b Enter
wait_for "scenario 1 of 3: faults"
keys End
wait_for "faults: "
last=$(counter)
keys Home
wait_for "faults: 0 groups, 0 B migrated"
first=0
i=0
while [ $i -lt 40 ] && [ "${first:-0}" -eq 0 ]; do
	keys Right
	sleep 0.1
	first=$(counter)
	i=$((i + 1))
done
second=$first
while [ $i -lt 80 ] && [ "${second:-0}" -eq "${first:-0}" ]; do
	keys Right
	sleep 0.1
	second=$(counter)
	i=$((i + 1))
done
[ "${first:-0}" -gt 0 ] && [ "$second" -gt "$first" ] && [ "$last" -gt "$second" ] && ok ||
	fail "the fault counter does not rise group by group: $first, then $second, of $last"
keys End
wait_for "faults: $last groups"
bar=$(screen | grep '^PCIe HtoD' | cut -c 15-)
echo "$bar" | grep -q "MiB" && fail "PCIe HtoD is one labelled transfer: '$bar'" || ok
echo "$bar" | grep -q "          " && fail "PCIe HtoD idles through the stall: '$bar'" || ok
keys q q q
wait_for "hdsim-exit=0"

# Lesson 17's ring8 at a quarter speed: the all-reduce's counter reaches its
# 2 x (8 - 1) = 14th step, chunks on the links between named ranks, algBw and
# busBw beside it.
start
wait_for "Pinned vs pageable"
keys /
keys c o l l e c t i v e s
wait_for "/collectives_"
keys Enter Enter
wait_for "exploring lesson 17"
keys Tab
wait_for "scenario 2 of 2: ring8"
keys Home - -
wait_for "ar allreduce to come: 14 ring steps  algBw 213 GB/s busBw 373 GB/s"
keys Space
wait_for "ar allreduce reduce-scatter step 1 of 7 (ring step 1 of 14)"
patience=200
wait_for "all-gather step 7 of 7 (ring step 14 of 14)"
patience=50
screen | grep -qE 'R2 -\[c[0-7]\]-> R3' && ok || fail "no chunk on the link R2 -> R3"
# Under the ring each rank's buffer in 8 pieces, read from the trace at the
# playhead: before the all-reduce every piece holds its own rank's share
# alone (1); stepping event by event into the all-gather, pieces hold the
# sums of several ranks (2 .. 7) and some are complete (8).
keys Home
wait_for "ar allreduce to come: 14 ring steps"
has "11111111   11111111   11111111"
before=$(screen | grep -E '^[0-9]{8}   [0-9]{8}' | head -n 1)
i=0
while [ $i -lt 80 ] && ! screen | grep -qF "(ring step 9 of 14)"; do
	keys Right
	sleep 0.1
	i=$((i + 1))
done
wait_for "(ring step 9 of 14)"
after=$(screen | grep -E '^[0-9]{8}   [0-9]{8}' | head -n 1)
[ -n "$after" ] && [ "$after" != "$before" ] && ok ||
	fail "the pieces did not change between two playhead positions: '$before', '$after'"
echo "$after" | grep -qE '^[1-8]*8[1-8]*   ' && echo "$after" | grep -qE '^[1-8]*[2-7]' && ok ||
	fail "R0's buffer at ring step 9 lacks a complete piece and a partial sum: '$after'"
keys q q
wait_for "hdsim-exit=0"

# Ghost runs that read in monochrome: under NO_COLOR, after a knob change
# the previous run's lanes that changed are rows of their own, named, and
# the status line and the legend say what that run was.
runner="env NO_COLOR=1"
start
runner=
wait_for "Pinned vs pageable"
keys /
keys h o s t - a n d
wait_for "/host-and_"
keys Enter Enter
wait_for "exploring lesson 1"
keys k
wait_for "Knobs ("
keys t Space = Space 1 2 m s Enter
wait_for "t          12.0 ms"
keys k End
wait_for "before 5.01 ms (+7.00 ms; t = 5.00 ms)"
[ "$(screen | grep -c '^  before  ')" -ge 2 ] && ok || fail "no ghost rows of their own"
screen | grep -A1 '^Compute ' | grep -q '^  before  ' && ok ||
	fail "the kernel's ghost is not on the row beneath Compute"
keys L
wait_for "before  previous run, whole and dim on its own rows: t = 5.00 ms"
keys q q q
wait_for "hdsim-exit=0"

# 80x24: views fold, never dropping the rows the page talks about.  Lesson
# 6 with the explanation open keeps Compute and both PCIe rows (the diagram
# shrinks, the empty Host thread row goes); lesson 19's 64 ranks fold into
# the first ranks, one row for the ranks between, and the last.
start
wait_for "Pinned vs pageable"
resize 80 24
keys /
keys t w o - s t r
wait_for "/two-str_"
keys Enter Enter
wait_for "exploring lesson 6"
keys A
wait_for "With the batch in 8 chunks on two streams"
keys b Enter b Enter
wait_for "scenario 2 of 3: two-streams"
keys End
wait_for "Explanation"
for row in "Compute " "PCIe HtoD " "PCIe DtoH " "Memcpy HtoD " "Memcpy DtoH "; do
	screen | grep -q "^$row" && ok || fail "lesson 6 at 80x24 lost the row '$row'"
done
keys q q q
wait_for "hdsim-exit=0"
start
wait_for "Pinned vs pageable"
resize 80 24
keys /
keys s c a l i n g
wait_for "/scaling_"
keys Enter Enter
wait_for "(page 1 of"
keys End Space
wait_for "Order by how much the all-reduce time grows"
keys a b Enter
wait_for "How sure are you?"
keys Enter
wait_for "For the small all-reduce on one node"
keys b Enter
wait_for "scenario 1 of 4"
keys Tab
wait_for "scenario 2 of 4"
wait_for "64 ranks on 8 nodes: node 0: R0-R7 | ... | node 7: R56-R63"
screen | grep -qE '^R[0-9]+-R62 +\([0-9]+ ranks like these not shown\)' && ok ||
	fail "lesson 19's 64 ranks are not folded"
has "R0 Stream 2 (s)"
has "R63 Stream 2 (s)"
has "PgDn J: scroll to them"
# The folded ranks are reachable: PgDn pages through them (a row for the
# ranks above, the next ranks whole, a row for the rest), J and K move one
# rank; at the end R62 and R63 show whole and nothing is folded below;
# PgUp goes back to the first ranks.
lacks "R62 Stream 2 (s)"
keys NPage
wait_for "PgUp K: scroll up"
screen | grep -qE '^R0-R[0-9]+ +\([0-9]+ ranks like these not shown\)' && ok ||
	fail "scrolled, the ranks above are not one row"
lacks "R0 Stream 2 (s)"
i=0
while [ $i -lt 64 ] && ! screen | grep -qF "R62 Stream 2 (s)"; do
	keys NPage
	sleep 0.1
	i=$((i + 1))
done
wait_for "R62 Stream 2 (s)"
has "R63 Stream 2 (s)"
has "R63 NVLink out"
lacks "PgDn J: scroll to them"
keys K
wait_for "(1 rank like these not shown)"
screen | grep -qE '^R63 +\(1 rank like these not shown\)' && ok || fail "K did not fold R63"
keys J
wait_for "R63 Stream 2 (s)"
lacks "(1 rank like these not shown)"
i=0
while [ $i -lt 64 ] && ! screen | grep -qF "R0 Stream 2 (s)"; do
	keys PPage
	sleep 0.1
	i=$((i + 1))
done
wait_for "R0 Stream 2 (s)"
lacks "PgUp K: scroll up"
keys q q q
wait_for "hdsim-exit=0"

# Ranks on their topology (its questions answered above, lesson 19 opens to
# explore): the large all-reduce with nodes = 2 puts
# 16 ranks on two NVSwitch nodes; stepping through the ring, a transfer
# crosses the network from node 0 to node 1 (R7 -> R8) while the others go
# through the NVSwitch inside their node.
start
wait_for "Pinned vs pageable"
keys /
keys s c a l i n g
wait_for "/scaling_"
keys Enter Enter
wait_for "exploring lesson 19"
keys k
wait_for "Knobs ("
keys n o d e s Space = Space 2 Enter
wait_for "nodes      2 "
keys k Tab Tab Tab
wait_for "scenario 4 of 4: big-many"
wait_for "16 ranks, one GPU each, on 2 nodes of 8: node 0: R0-R7 | node 1: R8-R15; NVSwitch"
keys Home
wait_for "links idle"
i=0
while [ $i -lt 80 ] && ! screen | grep -qE 'R[0-9]+ -> R[0-9]+ NVSwitch in node [01]'; do
	keys Right
	sleep 0.1
	i=$((i + 1))
done
screen | grep -qE 'R[0-9]+ -> R[0-9]+ NVSwitch in node [01]' && ok ||
	fail "no transfer through the NVSwitch inside a node"
lacks "network node"
while [ $i -lt 160 ] && ! screen | grep -qF "R7 -> R8 network node 0 -> node 1"; do
	keys Right
	sleep 0.1
	i=$((i + 1))
done
wait_for "R7 -> R8 network node 0 -> node 1"
keys q q q
wait_for "hdsim-exit=0"

# ---- lesson 22: host threads have rows of their own, named ---------------------
start
wait_for "Pinned vs pageable"
keys /
keys d a t a l o a d e r
wait_for "/dataloader_"
keys Enter Enter
wait_for "(page 1 of 2)"
keys Space Space
wait_for "Put the four loaders in the order they finish"
keys d c b a Enter
wait_for "How sure are you?"
keys Enter
wait_for "what does the main thread spend most of its time on?"
keys b
wait_for "How sure are you?"
keys Enter
wait_for "scenario 1 of 4: inline"
keys Tab Tab Tab
wait_for "scenario 4 of 4: pinned"
keys End
for row in "Worker 0 " "Worker 3 " "Thread pin-memory " "Host thread " "CUDA API "; do
	shows "$row" 20 && ok || fail "lesson 22's pinned run lacks the row '$row'"
done
keys q q q
wait_for "hdsim-exit=0"

finish tui.sh
