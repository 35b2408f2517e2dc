#!/bin/sh
# class.sh - an instructor's class export end to end, through the program:
#   - two learners answer a lesson of the instructor's (points per question,
#     a misconception, markup and a spreadsheet formula in its text) in the
#     plain mode, each into a database of their own; wes answers wrong,
#     watches the run, answers again right;
#   - the attempts are stored with whether the run had been seen, and
#     graded by the first answer before the run by default: wrong; --grade
#     best and last grade otherwise, and the files name the policy;
#   - with the lesson file gone, Points Possible is still the lesson's (5),
#     though ann answered one question of two;
#   - --keep-going skips a missing and a junk database, naming them; a
#     database named twice is read once; without it, exit 2 and no files;
#   - a learner who answered an edited lesson: a warning and a note;
#   - class.html rendered by headless Chromium shows each question's text
#     and how many chose each option, escaped (skipped without Chromium).
#
# Run by `make check` with $HDSIM set; exits 77 (skipped) without it or
# without python3.
# shellcheck disable=SC2015  # "test && ok || fail" is safe: ok never fails
set -u

if [ -z "${HDSIM:-}" ] || [ ! -x "$HDSIM" ]; then
	echo "class.sh: HDSIM is not set: skipped"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "class.sh: python3 is not installed: skipped"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hdsim-class.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
unset HDSIM_LESSON_PATH HDSIM_LEARNER
XDG_DATA_HOME=$tmp/xdg XDG_CONFIG_HOME=$tmp/config HOME=$tmp/home
export XDG_DATA_HOME XDG_CONFIG_HOME HOME
mkdir -p "$HOME" "$tmp/lessons"

. "$(dirname "$0")/check-lib.sh"

lesson=$tmp/lessons/grading.hds
cat >"$lesson" <<'EOF'
hdsim 1
lesson grading-demo
title "Copies & <tags>"
question first choice "Which copy finishes first?"
  option pinned "The copy from pinned memory"
  option pageable "The copy from pageable memory"
  misconception "cudaMemcpyAsync never makes the <host> wait"
  option same "=SUM(1,2) <script>alert(1)</script>"
  answer pinned
  points 3
end
question wait choice "Does the host wait for the pageable copy?"
  option yes "Yes"
  option no "No"
  answer yes
  points 2
end
scenario pinned "pinned"
  buffer h pinned 64MiB
  buffer d device 64MiB
  up: copy h -> d async
  sync device
end
EOF
"$HDSIM" lint "$lesson" >/dev/null && ok || fail "the lesson does not lint"

# wes: first b (wrong, sure), then a (right); the runs; then again: a
# (right), b (wrong).  ann: first a (right), then quits.
printf 'b\n5\na\n3\n\n\nretry\na\n4\nb\n\nquit\n' |
	"$HDSIM" --interactive "$lesson" --db "$tmp/wes.db" --learner wes >"$tmp/out" 2>&1 ||
	fail "wes's session exited $?"
grep -q "Right. You chose a) The copy from pinned memory" "$tmp/out" && ok ||
	fail "wes's second answer was not taken: $(tail -n 5 "$tmp/out")"
printf 'a\n4\nquit\n' |
	"$HDSIM" --interactive "$lesson" --db "$tmp/ann.db" --learner ann >"$tmp/out" 2>&1 ||
	fail "ann's session exited $?"

# every attempt kept, with whether the run had been seen
"$HDSIM" export --format csv --table progress --db "$tmp/wes.db" >"$tmp/progress.csv" ||
	fail "progress export exited $?"
python3 - "$tmp/progress.csv" <<'EOF' && ok || fail "wes's attempts are not stored as made"
import csv, sys
rows = sorted(csv.DictReader(open(sys.argv[1], newline="")), key=lambda r: int(r["id"]))
got = [(r["question"], r["answer"], r["result"], r["seen"]) for r in rows]
want = [("first", "pageable", "wrong", "no"), ("wait", "yes", "right", "no"),
        ("first", "pinned", "right", "yes"), ("wait", "no", "wrong", "yes")]
assert got == want, got
assert len({r["lesson_version"] for r in rows}) == 1 and len(rows[0]["lesson_version"]) == 64
EOF

# ---- graded without the lesson file -------------------------------------------------
rm "$lesson"
grades() { # grades POLICY: the gradebook's header, points possible, ann's and wes's
	python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
print("|".join([rows[0][5], rows[1][5]] + ["%s=%s" % (r[0], r[5]) for r in rows[2:]]))' \
		"$tmp/c-$1/gradebook.csv"
}
for policy in default first best last; do
	if [ "$policy" = default ]; then
		"$HDSIM" export --class "$tmp/wes.db" "$tmp/ann.db" -o "$tmp/c-$policy" \
			>/dev/null 2>"$tmp/err"
	else
		"$HDSIM" export --class "$tmp/wes.db" "$tmp/ann.db" -o "$tmp/c-$policy" \
			--grade "$policy" >/dev/null 2>"$tmp/err"
	fi
	rc=$?
	[ "$rc" -eq 0 ] && ok || fail "--grade $policy exited $rc: $(cat "$tmp/err")"
	# nothing on standard error but the word that, without --roster, the
	# gradebook's rows carry no Canvas ids (gradebook.sh tests the roster)
	grep -v -q "gradebook.csv has a row per learner by the name they chose" "$tmp/err" &&
		fail "--grade $policy warned: $(cat "$tmp/err")"
done
# wrong, then right after the run: graded wrong (wes: 2 of 5, the second
# question); best: 5; last: 3 (first right, second wrong)
for pair in "default|first|2" "first|first|2" "best|best|5" "last|last|3"; do
	policy=${pair%%|*}
	rest=${pair#*|}
	name=${rest%%|*}
	wes=${rest#*|}
	want="hdsim grading-demo (grade: $name)|5|ann=3|wes=$wes"
	got=$(grades "$policy")
	[ "$got" = "$want" ] && ok || fail "gradebook with --grade $policy: '$got', not '$want'"
done
python3 - "$tmp/c-default/answers.csv" <<'EOF' && ok || fail "answers.csv marks the wrong attempt"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1], newline="")) if r["learner"] == "wes"]
first = [r for r in rows if r["question"] == "first"]
assert [(r["attempt"], r["answer"], r["seen"], r["graded"], r["grade_policy"], r["points"])
        for r in first] == [("1", "pageable", "no", "yes", "first", "3"),
                            ("2", "pinned", "yes", "", "first", "3")], first
EOF
grep -q '<code>--grade last</code>' "$tmp/c-last/class.html" && ok ||
	fail "class.html does not name the policy"

# ---- keep going past what cannot be read; a database named twice ------------------------
printf 'not a database at all, just text long enough to be read' >"$tmp/junk.db"
rm -rf "$tmp/kg"
"$HDSIM" export --class "$tmp/wes.db" "$tmp/none.db" -o "$tmp/kg" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ ! -e "$tmp/kg" ] && grep -q "no such database" "$tmp/err" && ok ||
	fail "a missing database without --keep-going: exit $rc, $(cat "$tmp/err")"
"$HDSIM" export --class "$tmp/wes.db" "$tmp/none.db" "$tmp/junk.db" "$tmp/ann.db" \
	"$tmp/./wes.db" "$tmp/wes.db" --keep-going -o "$tmp/kg" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && ok || fail "--keep-going exited $rc: $(cat "$tmp/err")"
[ "$(grep -c "skipped" "$tmp/err")" -eq 2 ] && grep -q "skipped $tmp/none.db" "$tmp/err" &&
	grep -q "skipped $tmp/junk.db" "$tmp/err" && ok ||
	fail "--keep-going did not name what it skipped: $(cat "$tmp/err")"
[ "$(grep -c "it was read once" "$tmp/err")" -eq 2 ] && ok ||
	fail "a database named twice was not noted: $(cat "$tmp/err")"
[ "$(python3 -c 'import csv, sys; print(len(list(csv.reader(open(sys.argv[1], newline="")))))' \
	"$tmp/kg/answers.csv")" -eq 6 ] && ok ||
	fail "a database named twice was counted twice: $(cat "$tmp/kg/answers.csv")"
"$HDSIM" export --class "$tmp/none.db" "$tmp/junk.db" --keep-going -o "$tmp/kg2" \
	>/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ ! -e "$tmp/kg2" ] && grep -q "none of the 2 databases" "$tmp/err" && ok ||
	fail "--keep-going with nothing readable: exit $rc, $(cat "$tmp/err")"

# ---- another version of the lesson -----------------------------------------------------
cat >"$lesson" <<'EOF'
hdsim 1
lesson grading-demo
title "Copies, edited"
question first choice "Which copy finishes first?"
  option pinned "The copy from pinned memory"
  option pageable "The copy from pageable memory"
  answer pinned
  points 3
end
scenario pinned "pinned"
  buffer h pinned 64MiB
  buffer d device 64MiB
  up: copy h -> d async
  sync device
end
EOF
printf 'a\n\nquit\n' |
	"$HDSIM" --interactive "$lesson" --db "$tmp/cy.db" --learner cy >"$tmp/out" 2>&1 ||
	fail "cy's session exited $?"
"$HDSIM" export --class "$tmp/wes.db" "$tmp/ann.db" "$tmp/cy.db" -o "$tmp/vv" >/dev/null \
	2>"$tmp/err" || fail "the export of two versions exited $?"
grep -q "warning: lesson grading-demo was answered in 2 versions" "$tmp/err" && ok ||
	fail "two versions of a lesson were not warned of: $(cat "$tmp/err")"
grep -q "Answered in 2 versions of the lesson" "$tmp/vv/class.html" && ok ||
	fail "class.html does not note the two versions"

# ---- class.html, rendered ------------------------------------------------------------------
chrome=
for c in chromium chromium-browser google-chrome; do
	if command -v "$c" >/dev/null 2>&1; then
		chrome=$c
		break
	fi
done
if [ -z "$chrome" ]; then
	echo "class.sh: Chromium is not installed: class.html was not rendered" \
		"(./quickstart check installs it)"
else
	timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
		--dump-dom "file://$tmp/c-default/class.html" >"$tmp/dom.html" 2>"$tmp/chrome.log"
	if python3 - "$tmp/dom.html" <<'EOF'
import sys
from html.parser import HTMLParser

class Page(HTMLParser):
    """The questions: heading text, and each options row's cells."""
    def __init__(self):
        super().__init__()
        self.questions, self.cell, self.row, self.in_h3 = [], None, None, False
        self.elements = set()
    def handle_starttag(self, tag, attrs):
        self.elements.add(tag)
        if tag == "h3":
            self.in_h3 = True
            self.questions.append({"title": "", "options": []})
        elif tag == "tr":
            self.row = []
        elif tag == "td" and self.row is not None:
            self.cell = ""
    def handle_endtag(self, tag):
        if tag == "h3":
            self.in_h3 = False
        elif tag == "td" and self.cell is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif tag == "tr":
            if self.row and len(self.row) == 4 and self.questions:
                self.questions[-1]["options"].append(self.row)
            self.row = None
    def handle_data(self, data):
        if self.in_h3:
            self.questions[-1]["title"] += data
        if self.cell is not None:
            self.cell += data

dom = open(sys.argv[1], encoding="utf-8").read()
p = Page()
p.feed(dom)
assert "script" not in p.elements and "tags" not in p.elements, p.elements
assert "Lesson grading-demo: Copies & <tags>" in dom.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
q = {x["title"]: x["options"] for x in p.questions}
first = q["first (3 points): Which copy finishes first?"]
assert first == [
    ["a)", "The copy from pinned memory (the answer)", "1", ""],
    ["b)", "The copy from pageable memory", "1", "cudaMemcpyAsync never makes the <host> wait"],
    ["c)", "=SUM(1,2) <script>alert(1)</script>", "0", ""],
], first
wait = q["wait (2 points): Does the host wait for the pageable copy?"]
assert [r[2] for r in wait] == ["1", "0"], wait
assert "Sure but wrong: 1" in dom.replace("<strong>", "").replace("</strong>", "")
EOF
	then ok; else fail "Chromium's DOM of class.html lacks the questions ($(tail -n 3 "$tmp/chrome.log"))"; fi
fi

finish class.sh
