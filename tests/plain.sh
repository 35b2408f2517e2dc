#!/bin/sh
# plain.sh - the plain mode for screen readers: driven through a
# pseudo-terminal by plain.py (questions, feedback, knobs, stored progress);
# through a pipe, --plain keeps narrating a run and --interactive reads
# commands.  Run by `make check` with $HDSIM set; skipped (77) without it or
# without python3.
# shellcheck disable=SC2015  # "test && ok || fail" is safe: ok never fails
set -u
if [ -z "${HDSIM:-}" ] || [ ! -x "$HDSIM" ]; then
	echo "plain.sh: HDSIM is not set: skipped"
	exit 77
fi
command -v python3 >/dev/null 2>&1 || { echo "plain.sh: no python3: skipped"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hdsim-plain.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_DATA_HOME="$tmp/xdg" XDG_CONFIG_HOME="$tmp/config" HOME="$tmp/home"
mkdir -p "$HOME"
unset HDSIM_LESSON_PATH NO_COLOR HDSIM_LEARNER
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

python3 "$(dirname "$0")/plain.py" "$HDSIM" "$tmp/pty.db" || fail=1

# Through a pipe --plain narrates as before: no commands are read.
"$HDSIM" --plain </dev/null >"$tmp/out" 2>&1
grep -q "One line per event" "$tmp/out" && ! grep -q "plain mode" "$tmp/out" &&
	ok "--plain through a pipe narrates a run" || bad "--plain through a pipe narrates a run"
"$HDSIM" --plain 4 </dev/null >"$tmp/out" 2>&1
grep -q "Lesson 4: Pinned vs pageable" "$tmp/out" &&
	ok "--plain LESSON through a pipe narrates that lesson" ||
	bad "--plain LESSON through a pipe narrates that lesson"
# --interactive reads commands from the pipe: a script can drive it.
printf 'a\n\n' | "$HDSIM" --interactive 1 --db "$tmp/pipe.db" --learner piper >"$tmp/out" 2>&1
st=$?
[ "$st" -eq 0 ] && grep -q "Page 1 of" "$tmp/out" && ! grep -q "$(printf '\033')" "$tmp/out" &&
	ok "--interactive through a pipe reads commands" ||
	bad "--interactive through a pipe reads commands (exit $st)"
printf 'open 4\n\n\nb\n4\nquit\n' | "$HDSIM" --interactive --db "$tmp/pipe.db" \
	--learner piper >"$tmp/out" 2>&1
"$HDSIM" progress --db "$tmp/pipe.db" --learner piper pinned-vs-pageable >"$tmp/prog" 2>&1
grep -q "faster    pageable  wrong   4/5" "$tmp/prog" &&
	ok "--interactive stores the answer" || bad "--interactive stores the answer"
# An option's feedback: said right after the choice, and under the stored
# answer in `hdsim progress`.
printf '\n\n\nc\n4\nquit\n' | "$HDSIM" --interactive log-every-n --db "$tmp/pipe.db" \
	--learner piper >"$tmp/out" 2>&1
grep -q "^On that answer: Only the logged steps pay: between two logs" "$tmp/out" &&
	ok "--interactive says the feedback of the option chosen" ||
	bad "--interactive says the feedback of the option chosen"
"$HDSIM" progress --db "$tmp/pipe.db" --learner piper log-every-n >"$tmp/prog" 2>&1
grep -q "cost      all     wrong   4/5" "$tmp/prog" &&
	grep -q "^    on that answer: Only the logged steps pay" "$tmp/prog" &&
	ok "progress shows the feedback under the answer" ||
	bad "progress shows the feedback under the answer"
# A lesson that is not there, and --plain with --json, are refused as input.
"$HDSIM" --plain 99 </dev/null >"$tmp/out" 2>&1
[ $? -eq 2 ] && ok "--plain with no such lesson exits 2" || bad "--plain 99 exits 2"
"$HDSIM" --interactive --json </dev/null >"$tmp/out" 2>&1
[ $? -eq 2 ] && ok "--interactive with --json exits 2" || bad "--interactive --json exits 2"
exit $fail
