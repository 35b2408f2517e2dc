#!/bin/sh
# readme_exports.sh - every `hdsim export` command README.md shows, run as
# written on a new learner's database: a learner who has answered one
# question of lesson 4 in the plain mode (hdsim --interactive) and stored
# nothing else, in the default database; alice.db and bob.db made the same
# way, a roster.csv as Canvas exports it, and a folder handed-in/ of both
# with a file that is not a database, for the class examples.  Each
# command must exit 0, say nothing is wrong, and write what it names, not
# an empty report ("No runs were selected").  The commands are read from
# README.md, so the README cannot show one that fails.
#
# Run by `make check` with $HDSIM set; exits 77 (skipped) without it.
set -u

if [ -z "${HDSIM:-}" ] || [ ! -x "$HDSIM" ]; then
	echo "readme_exports.sh: HDSIM is not set: skipped"
	exit 77
fi
src=${HDSIM_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hdsim-readme.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
unset HDSIM_LESSON_PATH HDSIM_LEARNER HDSIM_LEARNER_ID
HOME=$tmp/home
XDG_DATA_HOME=$tmp/xdg
XDG_CONFIG_HOME=$tmp/config
export HOME XDG_DATA_HOME XDG_CONFIG_HOME
mkdir -p "$HOME" "$tmp/work"

. "$(dirname "$0")/check-lib.sh"

# answer NAME [--db FILE]: lesson 4's first question, sure 4 of 5
answer() {
	who=$1
	shift
	printf 'open 4\n\n\nb\n4\nquit\n' |
		"$HDSIM" --interactive --learner "$who" "$@" > "$tmp/answer.out" 2>&1 ||
		fail "$who could not answer: $(tail -n 3 "$tmp/answer.out")"
}
answer newcomer                                 # the default database
# alice and bob give the SIS Login ID the roster has (as learner-id would)
HDSIM_LEARNER_ID=alice answer alice --db "$tmp/work/alice.db"
HDSIM_LEARNER_ID=bob answer bob --db "$tmp/work/bob.db"
unset HDSIM_LEARNER_ID
[ -s "$XDG_DATA_HOME/hdsim/hdsim.db" ] && ok || fail "the learner's answer made no database"
printf 'Student,ID,SIS User ID,SIS Login ID,Section\r\n' > "$tmp/work/roster.csv"
printf '    Points Possible,,,,\r\n' >> "$tmp/work/roster.csv"
printf '"Liddell, Alice",2001,s2001,alice,A\r\n' >> "$tmp/work/roster.csv"
printf '"Builder, Bob",2002,s2002,bob,A\r\n' >> "$tmp/work/roster.csv"
# the databases handed in, one of them not a database at all
mkdir -p "$tmp/work/handed-in"
cp "$tmp/work/alice.db" "$tmp/work/bob.db" "$tmp/work/handed-in/"
printf 'my answers\n' > "$tmp/work/handed-in/carol.db"

grep -E '^_build/hdsim export ' "$src/README.md" | sed 's/ *#.*//' > "$tmp/commands"
count=$(wc -l < "$tmp/commands")
[ "$count" -ge 6 ] && ok || fail "README.md shows $count export commands; expected 6 or more"

while IFS= read -r line; do
	cmd=$(printf '%s' "$line" | sed "s|^_build/hdsim|\"\$HDSIM\"|")
	out=$(printf '%s\n' "$line" | sed -n 's/.* -o \([^ ]*\).*/\1/p')
	rm -rf "${tmp:?}/work/$out"
	(cd "$tmp/work" && eval "$cmd") > "$tmp/stdout" 2> "$tmp/stderr"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "'$line' exited $rc: $(cat "$tmp/stderr")"
		continue
	fi
	if grep -q 'error' "$tmp/stderr"; then
		fail "'$line' said: $(cat "$tmp/stderr")"
		continue
	fi
	target=$tmp/work/$out
	if [ -z "$out" ] || [ ! -e "$target" ]; then
		fail "'$line' wrote no $out"
		continue
	fi
	if [ -d "$target" ]; then
		[ -n "$(ls "$target")" ] && ! find "$target" -type f -empty | grep -q . && ok ||
			fail "'$line' left $out empty or with an empty file"
		continue
	fi
	[ -s "$target" ] && ok || fail "'$line' wrote an empty $out"
	if grep -q 'No runs were selected\|Nothing to draw' "$target"; then
		fail "'$line' wrote a report of nothing"
	else
		ok
	fi
	case $out in
	*.html | *.md)
		grep -q 'Summary' "$target" && grep -q 'newcomer' "$target" &&
			grep -q 'pinned-vs-pageable' "$target" && ok ||
			fail "'$line': the report lacks the summary, the learner or the lesson"
		grep -q 'simulated now' "$tmp/stderr" && ok ||
			fail "'$line' did not say the lesson was simulated: $(cat "$tmp/stderr")"
		;;
	esac
	case $line in
	*--keep-going*)
		grep -q 'warning: skipped handed-in/carol.db: .*not a database' "$tmp/stderr" && ok ||
			fail "'$line' did not name the file it skipped: $(cat "$tmp/stderr")"
		;;
	esac
done < "$tmp/commands"

# the class example: both learners found in the roster, a score each
grep -q '^"Liddell, Alice",2001,s2001,alice,A,0' "$tmp/work/class/gradebook.csv" &&
	grep -q '^"Builder, Bob",2002,s2002,bob,A,0' "$tmp/work/class/gradebook.csv" && ok ||
	fail "the class example's gradebook: $(cat "$tmp/work/class/gradebook.csv")"
# graded by --grade best, the policy in the column, carol's file skipped
head -n 1 "$tmp/work/best/gradebook.csv" | grep -q ',hdsim pinned-vs-pageable (grade: best)' &&
	grep -q '^"Liddell, Alice",2001,s2001,alice,A,0' "$tmp/work/best/gradebook.csv" &&
	grep -q '^"Builder, Bob",2002,s2002,bob,A,0' "$tmp/work/best/gradebook.csv" && ok ||
	fail "the --grade best example's gradebook: $(cat "$tmp/work/best/gradebook.csv")"

# a learner who has answered nothing yet: a clear word, not an empty report
printf 'quit\n' | "$HDSIM" --interactive --learner idle --db "$tmp/idle.db" > /dev/null 2>&1
"$HDSIM" export --format html --db "$tmp/idle.db" -o "$tmp/idle.html" 2> "$tmp/stderr"
rc=$?
[ "$rc" -eq 2 ] && [ ! -e "$tmp/idle.html" ] &&
	grep -q "nothing to export: no run and no answer is stored here yet; answer a lesson" \
		"$tmp/stderr" && ok || fail "html of an empty database: exit $rc: $(cat "$tmp/stderr")"
"$HDSIM" export --format csv --db "$tmp/idle.db" -o "$tmp/idle/" > /dev/null 2> "$tmp/stderr" &&
	[ -s "$tmp/idle/runs.csv" ] && grep -q "the tables are empty" "$tmp/stderr" && ok ||
	fail "csv of an empty database: $(cat "$tmp/stderr")"
"$HDSIM" export --format md --learner nobody -o "$tmp/nobody.md" 2> "$tmp/stderr"
rc=$?
[ "$rc" -eq 2 ] && grep -q "no answer of learner 'nobody'" "$tmp/stderr" && ok ||
	fail "md of a learner with no answer: exit $rc: $(cat "$tmp/stderr")"

finish readme_exports.sh
