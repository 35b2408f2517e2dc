#!/bin/sh
# tui_stress.sh - the lesson browser under a hostile terminal, in tmux:
# started at 40x10, resize storms and SIGWINCH storms while a run plays,
# 1x1, SIGTERM while a run plays, SIGINT, TERM=dumb, no terminal at all.
# hdsim must not crash, must still answer keys afterwards, must not spin
# the CPU, and must leave the terminal restored (main screen, cursor shown).
#
# Run by `make check` with $HDSIM set; exits 77 (skipped) without it or
# without tmux.
# shellcheck disable=SC2015  # "test && ok || fail" is safe: ok never fails
set -u

name=tui_stress.sh
. "$(dirname "$0")/tmux-lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hdsim-tuis.XXXXXX") || exit 99
sock=hdsimstress$$-0
nsock=0
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM

# A lesson of our own, found by searching its title: a run that plays a while.
mkdir "$tmp/lessons"
cat >"$tmp/lessons/zq.hds" <<'LESSON'
hdsim 1
lesson stress-zq
title "Stress test lesson zq"
part "Stress"
summary "A lesson for the terminal stress test"

page "Only page"
| Two copies and a kernel, for watching a run play.
end

question first choice "Which finishes first?"
  option copy "The copy"
  option kernel "The kernel"
  answer copy
  explain "The copy is short."
  scenario play
end

scenario play "Copies and kernels"
  buffer h pinned 64MiB
  buffer d device 64MiB
  stream s
  repeat 20
    up: copy h -> d async on s
    kernel spin 2ms on s
  end
  sync device
end
LESSON

# start W H [ENV...]: hdsim in a fresh W x H pane; the shell around it
# reports hdsim's exit status and keeps the pane open.
# Each session is a new learner, so the lesson is not yet answered (an
# answered lesson opens in explore mode).
start() {
	w=$1 h=$2
	shift 2
	tmux -L "$sock" kill-server 2>/dev/null
	nsock=$((nsock + 1))
	sock=hdsimstress$$-$nsock
	tmux -L "$sock" -f /dev/null new-session -d -x "$w" -y "$h" \
		"env HDSIM_LEARNER=t$nsock XDG_DATA_HOME=$tmp HDSIM_LESSON_PATH=$tmp/lessons \
		LANG=C.UTF-8 TERM=$term $* $HDSIM --db $tmp/db; echo hdsim-exit=\$?; \
		exec sleep 600"
}
hdsim_pid() {
	pane=$(tmux -L "$sock" display -p '#{pane_pid}')
	ps -o pid= --ppid "$pane" | head -n 1 | tr -d ' '
}
alive() {
	pid=$(hdsim_pid)
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && ok || fail "$1: hdsim is gone"
}
# open the lesson and answer its question: the run starts playing
play() {
	keys /
	keys S t r e s s Space t e s t
	wait_for "Stress test lesson zq"
	keys Enter Enter
	wait_for "(page 1 of 1)"
	keys PageDown
	wait_for "Which finishes first?"
	keys a
	wait_for "How sure are you?"
	keys Enter
	wait_for "CUDA API"
}

# ---- started far too small; then grown --------------------------------------
start 40 10
wait_for "terminal too small:"
wait_for "have 40x10"
resize 100 30
wait_for "Stress"
resize 1 1
sleep 0.3
alive "at 1x1"
resize 100 30
wait_for "Stress"
keys q
wait_for "hdsim-exit=0"
restored "started at 40x10"

# ---- a resize storm while a run plays ---------------------------------------
start 100 30
play
i=0
while [ $i -lt 80 ]; do
	# a fixed walk over sizes from 1x1 to 250x80
	w=$(( (i * 37) % 250 + 1 )) h=$(( (i * 13) % 80 + 1 ))
	resize "$w" "$h"
	i=$((i + 1))
done
alive "after 80 resizes"
resize 100 30
keys End
wait_for "Explanation"
screen | grep -qF "terminal too small" && fail "still 'too small' at 100x30" || ok
# idle again: no CPU spent waiting (at most 2 ticks in 2 s)
pid=$(hdsim_pid)
if [ -n "$pid" ]; then
	before=$(cpu_ticks "$pid")
	sleep 2
	after=$(cpu_ticks "$pid")
	[ -n "$before" ] && [ -n "$after" ] && [ $((after - before)) -le 2 ] && ok ||
		fail "idle after the storm used CPU: $before -> $after clock ticks in 2 s"
fi
keys q
wait_for "Stress"
keys q
wait_for "hdsim-exit=0"
restored "resize storm"

# ---- a SIGWINCH storm (no size change) while a run plays; then SIGTERM ------
start 100 30
play
pid=$(hdsim_pid)
if [ -n "$pid" ]; then
	i=0
	while [ $i -lt 300 ]; do
		kill -WINCH "$pid" 2>/dev/null
		i=$((i + 1))
	done
	alive "after 300 SIGWINCH"
	keys End
	wait_for "Explanation"
	keys Home Space
	sleep 0.2
	kill -TERM "$pid"
	wait_for "hdsim-exit=143"
	restored "SIGTERM while playing"
else
	fail "no hdsim process under the pane"
fi

# ---- SIGINT while resizing ---------------------------------------------------
start 100 30
play
resize 40 10
pid=$(hdsim_pid)
[ -n "$pid" ] && kill -INT "$pid"
wait_for "hdsim-exit=130"
restored "SIGINT at 40x10"

# ---- TERM=dumb on a terminal: text, no browser, no escape sequences --------
tmux -L "$sock" kill-server 2>/dev/null
nsock=$((nsock + 1))
sock=hdsimstress$$-$nsock
tmux -L "$sock" -f /dev/null new-session -d -x 100 -y 30 \
	"env HDSIM_LEARNER=t TERM=dumb $HDSIM --db $tmp/db >$tmp/dumb.out 2>&1; \
	echo hdsim-exit=\$?; exec sleep 600"
wait_for "hdsim-exit=0"
grep -q "Next: 'hdsim show 1'" "$tmp/dumb.out" && ok || fail "TERM=dumb: no text listing"
grep -q "$(printf '\033')" "$tmp/dumb.out" && fail "TERM=dumb: escape sequences written" || ok
restored "TERM=dumb"

# ---- no terminal at all: stdin, stdout or both not a terminal ---------------
# (output to a file; the lesson's own run to a pipe)
"$HDSIM" --db "$tmp/db" </dev/null >"$tmp/out" 2>&1 && ok || fail "hdsim </dev/null failed"
grep -q "Next: 'hdsim show 1'" "$tmp/out" && ok || fail "hdsim </dev/null: no listing"
HDSIM_LESSON_PATH=$tmp/lessons "$HDSIM" run stress-zq </dev/null 2>&1 | cat >"$tmp/out"
grep -q "Makespan" "$tmp/out" && ok || fail "hdsim run to a pipe: no makespan"
grep -q "$(printf '\033')" "$tmp/out" && fail "escape sequences in piped output" || ok
setsid "$HDSIM" --db "$tmp/db" </dev/null >"$tmp/out" 2>&1 && ok ||
	fail "hdsim without a controlling terminal failed"

finish tui_stress.sh
