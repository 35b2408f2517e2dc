#!/bin/sh
# lesson_ids.sh - lesson ids are unique: two lesson files of one id, or a file
# with a built-in lesson's id, are reported by `lint` (an error) and `list`
# (the later file is skipped) with both paths; a file that says `replaces ID`
# takes the other's place, and `list` says which it replaced.
#
# Run by `make check` with $HDSIM and $HDSIM_SRCDIR set; 77 (skipped) when not.
# shellcheck disable=SC2015  # "test && ok || fail" is safe: ok never fails
set -u

if [ -z "${HDSIM:-}" ] || [ -z "${HDSIM_SRCDIR:-}" ] || [ ! -x "$HDSIM" ]; then
	echo "lesson_ids.sh: HDSIM and HDSIM_SRCDIR are not set: skipped"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hdsim-ids.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
unset HDSIM_LESSON_PATH NO_COLOR
export COLUMNS=100

. "$(dirname "$0")/check-lib.sh"

has() { # has FILE TEXT WHY
	if grep -qF -e "$2" "$1"; then ok; else
		fail "$1 lacks '$2' ($3)"
		sed 's/^/    /' "$1" | head -8
	fi
}
status() { # status WANT GOT WHY
	if [ "$2" -eq "$1" ]; then ok; else fail "exit status $2, wanted $1 ($3)"; fi
}
lesson() { # lesson FILE ID TITLE [EXTRA]: a small lesson
	printf 'hdsim 1\nlesson %s\ntitle "%s"\n%s\nscenario a\n  host 1ms\nend\n' \
		"$2" "$3" "${4:-}" >"$1"
}

# --- two files of one id -------------------------------------------------------
mkdir "$tmp/two"
lesson "$tmp/two/a.hds" same-id "First"
lesson "$tmp/two/b.hds" same-id "Second"
HDSIM_LESSON_PATH="$tmp/two" "$HDSIM" list >"$tmp/out" 2>"$tmp/err"
status 0 $? "list with a clash in HDSIM_LESSON_PATH"
has "$tmp/err" "$tmp/two/b.hds: error: lesson id 'same-id' is already the id of $tmp/two/a.hds" \
	"list names both paths"
has "$tmp/out" "First" "the first file is listed"
grep -q "Second" "$tmp/out" && fail "the clashing file is listed too" || ok
"$HDSIM" lint "$tmp/two" >"$tmp/out" 2>"$tmp/err"
status 2 $? "lint of two files with one id"
has "$tmp/out" "$tmp/two/a.hds: ok" "the first file lints"
has "$tmp/err" "$tmp/two/b.hds: error: lesson id 'same-id' is already the id of $tmp/two/a.hds" \
	"lint names both paths"
# the folder on HDSIM_LESSON_PATH, a file linted by name
HDSIM_LESSON_PATH="$tmp/two" "$HDSIM" lint "$tmp/two/a.hds" >"$tmp/out" 2>"$tmp/err"
status 0 $? "lint of a file that is itself on HDSIM_LESSON_PATH"

# --- a built-in lesson's id ----------------------------------------------------
mkdir "$tmp/mine"
lesson "$tmp/mine/streams.hds" two-streams "My streams"
"$HDSIM" lint "$tmp/mine/streams.hds" >"$tmp/out" 2>"$tmp/err"
status 2 $? "lint of a file with a built-in lesson's id"
has "$tmp/err" \
	"$tmp/mine/streams.hds: error: lesson id 'two-streams' is already the id of the built-in" \
	"lint names the file"
has "$tmp/err" "06-two-streams.hds" "lint names the built-in lesson's file"
has "$tmp/err" "add 'replaces two-streams'" "lint says how to replace it"
HDSIM_LESSON_PATH="$tmp/mine" "$HDSIM" list >"$tmp/out" 2>"$tmp/err"
has "$tmp/err" "$tmp/mine/streams.hds: error: lesson id 'two-streams'" "list reports the clash"
grep -q "My streams" "$tmp/out" && fail "the clashing file replaced the built-in lesson" || ok

# --- a deliberate replacement ----------------------------------------------------
lesson "$tmp/mine/streams.hds" two-streams "My streams" "replaces two-streams"
"$HDSIM" lint "$tmp/mine/streams.hds" >"$tmp/out" 2>"$tmp/err"
status 0 $? "lint of a file that replaces a built-in lesson"
HDSIM_LESSON_PATH="$tmp/mine" "$HDSIM" list >"$tmp/out" 2>"$tmp/err"
status 0 $? "list with a replacement"
has "$tmp/out" "My streams  ($tmp/mine/streams.hds, replacing the built-in lesson)" \
	"list says what was replaced"
[ -s "$tmp/err" ] && fail "list warns about a deliberate replacement" || ok
# a replacement of another file names that file
lesson "$tmp/two/b.hds" same-id "Second" "replaces same-id"
HDSIM_LESSON_PATH="$tmp/two" "$HDSIM" list >"$tmp/out" 2>"$tmp/err"
has "$tmp/out" "Second  ($tmp/two/b.hds, replacing $tmp/two/a.hds)" "list names the replaced file"

# --- the shipped lessons are the built-in ones, not clashes ----------------------
"$HDSIM" lint "$HDSIM_SRCDIR/lessons" >"$tmp/out" 2>"$tmp/err"
status 0 $? "lint of the shipped lessons"

finish lesson_ids.sh
