#!/bin/sh
# gradebook.sh - the Canvas round trip end to end, as a class does it:
# learners name themselves and give their learner id in their configuration
# file and answer lesson 4 in the plain mode (hdsim --interactive), each
# into a database of their own; the instructor exports the class with the
# roster Canvas exported, and gradebook.csv is read by Python's csv module
# and checked column by column against Canvas's import layout (the rules of
# app/models/gradebook_importer.rb in instructure/canvas-lms): the header,
# the Points Possible row, the ids copied from the roster, a number where a
# learner is matched.  The report on standard error names the roster row
# with no learner and the learner with no row, sanitised for the terminal;
# without a roster it says Canvas will not match and points to --roster;
# --roster goes with --grade and --keep-going; a bad roster or learner id
# exits 2 and writes nothing.
#
# Run by `make check` with $HDSIM set; exits 77 (skipped) without it or
# without python3.
set -u

if [ -z "${HDSIM:-}" ] || [ ! -x "$HDSIM" ]; then
	echo "gradebook.sh: HDSIM is not set: skipped"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "gradebook.sh: python3 is not installed: skipped"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hdsim-gradebook.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
unset HDSIM_LESSON_PATH HDSIM_LEARNER HDSIM_LEARNER_ID
HOME=$tmp/home
XDG_DATA_HOME=$tmp/xdg
export HOME XDG_DATA_HOME
mkdir -p "$HOME"

. "$(dirname "$0")/check-lib.sh"

# learner FILE NAME ID ANSWER: configure, then answer lesson 4's first
# question (a or b, sure 4 of 5) in the plain mode, into FILE.db
learner() {
	mkdir -p "$tmp/$1/hdsim"
	printf '# %s\nlearner = %s\n' "$1" "$2" > "$tmp/$1/hdsim/config"
	[ -n "$3" ] && printf 'learner-id = %s\n' "$3" >> "$tmp/$1/hdsim/config"
	printf 'open 4\n\n\n%s\n4\nquit\n' "$4" |
		XDG_CONFIG_HOME=$tmp/$1 "$HDSIM" --interactive --db "$tmp/$1.db" \
			> "$tmp/$1.out" 2>&1 || fail "$1 could not answer: $(tail -n 3 "$tmp/$1.out")"
}
learner ada "Ada Lovelace" "s1001" a     # found by learner id (SIS User ID)
learner grace "grace hopper" "" b        # found by name
learner alan "Alan Turing" "ATURING" a   # found by learner id (SIS Login ID, any case)
learner stray "Ada L." "" a              # in no roster row

XDG_CONFIG_HOME=$tmp/ada "$HDSIM" progress --db "$tmp/ada.db" > "$tmp/progress" 2>&1
grep -q '^Learner id s1001: ' "$tmp/progress" && ok ||
	fail "progress does not show the learner id: $(cat "$tmp/progress")"
XDG_CONFIG_HOME=$tmp/grace "$HDSIM" progress --db "$tmp/grace.db" > "$tmp/progress" 2>&1
grep -q "^No learner id recorded" "$tmp/progress" && ok ||
	fail "progress without a learner id: $(cat "$tmp/progress")"

# Canvas's export (Grades, Export): BOM, CRLF, the Points Possible row, an
# assignment of its own, totals, a name with a right-to-left override, the
# test student.
printf '\357\273\277Student,ID,SIS User ID,SIS Login ID,Section,Quiz 1 (111),Current Score\r\n' \
	> "$tmp/roster.csv"
printf '    Points Possible,,,,,10.00,(read only)\r\n' >> "$tmp/roster.csv"
printf '"Lovelace, Ada",1001,s1001,alovelace,Section A,9.00,90.00\r\n' >> "$tmp/roster.csv"
printf '"Hopper, Grace",1002,s1002,ghopper,Section A,,\r\n' >> "$tmp/roster.csv"
printf '"Turing, Alan",1003,s1003,aturing,"Section B, evening",7.00,70.00\r\n' \
	>> "$tmp/roster.csv"
printf '"Noether, \342\200\256Emmy",1004,s1004,=enoether,Section B,,\r\n' >> "$tmp/roster.csv"
printf '"Student, Test",9999,,,Section A,,\r\n' >> "$tmp/roster.csv"

"$HDSIM" export --class "$tmp/ada.db" "$tmp/grace.db" "$tmp/alan.db" "$tmp/stray.db" \
	--roster "$tmp/roster.csv" -o "$tmp/class" > "$tmp/out" 2> "$tmp/err" ||
	fail "export --class --roster exited $?: $(cat "$tmp/err")"
[ -s "$tmp/class/gradebook.csv" ] && ok || fail "no gradebook.csv"

# the report: the learner with no row, the row with no learner (its name
# escaped for the terminal), the formula guard, the summary
grep -q "learner 'Ada L.' (.*stray.db) matches no roster row by name and gives no learner id" \
	"$tmp/err" && ok || fail "the stray learner is not reported: $(cat "$tmp/err")"
grep -qF "roster.csv:6: no learner for 'Noether, \\u202eEmmy' (SIS Login ID =enoether)" \
	"$tmp/err" && ok || fail "the row with no learner is not reported: $(cat "$tmp/err")"
if LC_ALL=C grep -q "$(printf '\342\200\256')" "$tmp/err"; then
	fail "the report passed a right-to-left override to the terminal"
else
	ok
fi
grep -q "roster.csv:6: the SIS Login ID '=enoether' starts like a spreadsheet formula" \
	"$tmp/err" && ok || fail "the formula guard is not reported: $(cat "$tmp/err")"
grep -q "4 students and Canvas.s test student, 3 with a learner (2 by learner id, 1 by name); 1 learner of 4 left out" \
	"$tmp/err" && ok || fail "no summary: $(cat "$tmp/err")"
grep -q "Student, Test" "$tmp/err" && fail "the test student was reported" || ok

# gradebook.csv as Canvas's importer reads it
if python3 - "$tmp/class/gradebook.csv" "$tmp/roster.csv" <<'EOF'
import csv, re, sys
raw = open(sys.argv[1], "rb").read()
assert not raw.startswith(b"\xef\xbb\xbf"), "a byte-order mark"
lines = raw.split(b"\r\n")
assert lines[-1] == b"" and all(b"\n" not in l for l in lines), "not CRLF line ends"
rows = list(csv.reader(open(sys.argv[1], newline="", encoding="utf-8")))
roster = list(csv.DictReader(open(sys.argv[2], newline="", encoding="utf-8-sig")))
roster = [r for r in roster if "Points Possible" not in r["Student"]]
head, pp, body = rows[0], rows[1], rows[2:]

# header: Canvas's student columns, then one assignment column per lesson
assert head[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"], head
assert "Student" in head[0] and "ID" in head[1]              # row_has_student_headers?
assert re.match(r"SIS\s+User\s+ID", head[2]) and re.match(r"SIS\s+Login\s+ID", head[3])
assert "Section" in head[4]
lessons = head[5:]
# the lesson id, not its number, and the grading policy (the default: the
# first answer before the run was shown)
assert lessons == ["hdsim pinned-vs-pageable (grade: first)"], lessons
for t in lessons:
    assert not re.search(r"\(\d+\)\s*$", t), t             # no "(id)" of another assignment
    assert not re.search("Current Score|Current Points|Current Grade|Final Score|"
                         "Final Points|Final Grade|Override", t), t
assert len(set(head)) == len(head), "a column twice"

# the Points Possible row: the first cell says so, numbers under assignments
assert "Points Possible" in pp[0] and pp[1:5] == ["", "", "", ""], pp
points = [float(x) for x in pp[5:]]
assert points == [3.0], points          # lesson 4's 3 questions, a point each

# a row per roster row, in its order, ids copied as Canvas exported them
assert len(body) == len(roster), (len(body), len(roster))
for got, want in zip(body, roster):
    assert len(got) == len(head), got
    assert got[0] == want["Student"] and got[1] == want["ID"], (got, want)
    assert got[2] == want["SIS User ID"] and got[4] == want["Section"], (got, want)
    if want["SIS Login ID"].startswith("="):
        assert got[3] == "'" + want["SIS Login ID"], got[3]   # the formula guard
    else:
        assert got[3] == want["SIS Login ID"], (got, want)
    assert re.fullmatch(r"\d+", got[1]), got[1]              # Canvas's user id

# scores: a number of points where a learner is, empty (grade kept) elsewhere
score = {r[0]: r[5] for r in body}
assert score["Lovelace, Ada"] == "1", score    # a: right
assert score["Hopper, Grace"] == "0", score    # b: wrong
assert score["Turing, Alan"] == "1", score
assert score["Noether, \u202eEmmy"] == "" and score["Student, Test"] == "", score
for r in body:
    for cell, most in zip(r[5:], points):
        assert cell == "" or (re.fullmatch(r"\d+(\.\d+)?", cell) and float(cell) <= most), r
EOF
then ok; else fail "gradebook.csv is not what Canvas imports"; fi

# --roster with --grade and --keep-going: a database that is not there is
# skipped and named, the roster joined as before, the policy in the column
"$HDSIM" export --class "$tmp/ada.db" "$tmp/absent.db" "$tmp/grace.db" --grade best \
	--keep-going --roster "$tmp/roster.csv" -o "$tmp/best" > /dev/null 2> "$tmp/err" ||
	fail "export --class --roster --grade best --keep-going exited $?: $(cat "$tmp/err")"
grep -q "warning: skipped .*absent.db" "$tmp/err" && ok ||
	fail "--keep-going did not name the database it skipped: $(cat "$tmp/err")"
grep -q "4 students and Canvas.s test student, 2 with a learner (1 by learner id, 1 by name); 0 learners of 2 left out" \
	"$tmp/err" && ok || fail "--keep-going with --roster: $(cat "$tmp/err")"
python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="", encoding="utf-8")))
assert rows[0][5:] == ["hdsim pinned-vs-pageable (grade: best)"], rows[0]
got = {r[0]: (r[1], r[5]) for r in rows[2:]}
assert got["Lovelace, Ada"] == ("1001", "1") and got["Hopper, Grace"] == ("1002", "0"), got
assert got["Turing, Alan"] == ("1003", ""), got' "$tmp/best/gradebook.csv" && ok ||
	fail "the gradebook graded best with a roster: $(cat "$tmp/best/gradebook.csv")"

# without a roster: today's rows by name, and a word on why Canvas will not
# match them
"$HDSIM" export --class "$tmp/ada.db" "$tmp/grace.db" -o "$tmp/plain" > /dev/null 2> "$tmp/err" ||
	fail "export --class without a roster exited $?"
grep -q "no Canvas ids.*--roster FILE" "$tmp/err" && ok ||
	fail "without --roster nothing says why Canvas will not match: $(cat "$tmp/err")"
python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="", encoding="utf-8")))
assert [r[0] for r in rows[2:]] == ["Ada Lovelace", "grace hopper"], rows
assert all(r[1] == "" and r[2] == "" for r in rows[2:]), rows' "$tmp/plain/gradebook.csv" &&
	ok || fail "the gradebook without a roster changed"

# bad input: exit 2, a message naming the roster line, no file written
bad() {
	what=$1
	says=$2
	shift 2
	rm -rf "$tmp/bad"
	"$HDSIM" export "$@" -o "$tmp/bad" > /dev/null 2> "$tmp/err"
	rc=$?
	if [ "$rc" -ne 2 ]; then
		fail "$what: exit status $rc, not 2"
	elif [ -e "$tmp/bad" ]; then
		fail "$what: files were written"
	elif ! grep -q -- "$says" "$tmp/err"; then
		fail "$what: the message does not say '$says': $(cat "$tmp/err")"
	else
		ok
	fi
}
printf 'Student,ID\r\n"Lovelace, Ada,1001\r\n' > "$tmp/unclosed.csv"
bad "an unclosed quote" "unclosed.csv:2: error: field 1 starts with a quote that is never closed" \
	--class "$tmp/ada.db" --roster "$tmp/unclosed.csv"
printf 'Student,ID\r\nAda,1\r\nBob,1\r\n' > "$tmp/dup.csv"
bad "one id on two rows" "dup.csv:3: error: ID '1' is also the ID of line 2" \
	--class "$tmp/ada.db" --roster "$tmp/dup.csv"
printf 'Name,Email\r\n' > "$tmp/notcanvas.csv"
bad "not Canvas's roster" "not a Canvas roster" --class "$tmp/ada.db" --roster "$tmp/notcanvas.csv"
bad "a missing roster" "none.csv" --class "$tmp/ada.db" --roster "$tmp/none.csv"
bad "--roster without --class" "--roster goes with --class" --format csv --roster "$tmp/roster.csv"

# a bad learner id stops the learner before anything is stored
mkdir -p "$tmp/badid/hdsim"
printf 'learner-id = has a\ttab\n' > "$tmp/badid/hdsim/config"
printf 'quit\n' | XDG_CONFIG_HOME=$tmp/badid "$HDSIM" --interactive --db "$tmp/badid.db" \
	> "$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q "badid/hdsim/config: error: learner-id: .*control character" \
	"$tmp/out" && [ ! -e "$tmp/badid.db" ] && ok ||
	fail "a bad learner id: exit $rc: $(cat "$tmp/out")"

# doc/instructors.md: its lesson lints clean and its roster is read
src=${HDSIM_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
awk '/^## 1\. Write a lesson/ { on = 1 } on && /^```$/ { if (inb) exit; inb = 1; next }
	inb { print }' "$src/doc/instructors.md" > "$tmp/doc-lesson.hds"
"$HDSIM" lint "$tmp/doc-lesson.hds" > "$tmp/out" 2>&1 &&
	grep -q ': ok: lesson course-sync-copy' "$tmp/out" && ok ||
	fail "the lesson of doc/instructors.md does not lint: $(cat "$tmp/out")"
awk '/^\$ cat roster.csv$/ { on = 1; next } on && /^```$/ { exit } on { print }' \
	"$src/doc/instructors.md" > "$tmp/doc-roster.csv"
"$HDSIM" export --class "$tmp/ada.db" --roster "$tmp/doc-roster.csv" -o "$tmp/doc" \
	> /dev/null 2> "$tmp/err" && grep -q "4 students and Canvas.s test student" "$tmp/err" &&
	ok || fail "the roster of doc/instructors.md: $(cat "$tmp/err")"

finish gradebook.sh
