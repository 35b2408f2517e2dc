# tmux-lib.sh - what the tmux tests of the lesson browser share (tui.sh,
# tui_stress.sh); sourced after they set $name (for messages) and before
# they set $sock (the tmux server of the pane under test).  Skips (77)
# without $HDSIM or tmux.
# shellcheck disable=SC2015  # "test && ok || fail" is safe: ok never fails

if [ -z "${HDSIM:-}" ] || [ ! -x "$HDSIM" ]; then
	echo "$name: HDSIM is not set: skipped"
	exit 77
fi
if ! command -v tmux >/dev/null 2>&1; then
	echo "$name: tmux is not installed: skipped"
	exit 77
fi
unset NO_COLOR TMUX
# The keys tmux sends (Home is ESC [ 1 ~) are those of its own terminal types.
term=tmux-256color
infocmp "$term" >/dev/null 2>&1 || term=screen-256color

. "$(dirname "$0")/check-lib.sh"
screen() {
	tmux -L "$sock" capture-pane -p
}
keys() {
	tmux -L "$sock" send-keys "$@"
}
# shows TEXT TENTHS: whether the pane shows TEXT within TENTHS tenths of a second
shows() {
	shows_i=0
	while [ $shows_i -lt "$2" ]; do
		screen | grep -qF -- "$1" && return 0
		sleep 0.1
		shows_i=$((shows_i + 1))
	done
	return 1
}
# wait_for TEXT: until the pane shows TEXT, at most $patience tenths of a second
patience=50
wait_for() {
	if shows "$1" "$patience"; then
		ok
		return 0
	fi
	fail "waited for '$1'; the pane shows:"
	screen | sed 's/^/  | /'
	return 1
}
# has TEXT: the pane shows TEXT; a frame being drawn gets 2 s to finish (on a
# loaded machine a capture can land between two halves of one redraw)
has() {
	shows "$1" 20 && ok || fail "pane lacks '$1'"
}
lacks() {
	screen | grep -qF -- "$1" && fail "pane shows '$1'" || ok
}
# restored [WHEN]: the main screen is back and the cursor shown
restored() {
	[ "$(tmux -L "$sock" display -p '#{alternate_on}')" = 0 ] && ok ||
		fail "${1:+$1: }the terminal is still in the alternate screen"
	[ "$(tmux -L "$sock" display -p '#{cursor_flag}')" = 1 ] && ok ||
		fail "${1:+$1: }the cursor was left hidden"
}
# cpu_ticks PID: user + system clock ticks the process has used
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null
}
resize() {
	tmux -L "$sock" resize-window -x "$1" -y "$2"
}
