#!/bin/sh
# attack.sh - crafted lessons, profiles, databases and output paths, each
# tried against the real binary as an attacker or a careless colleague
# would.  For every command it asserts: no exit of 128 or more (a signal, a
# sanitizer abort), done within 10 s, no sanitizer report, no raw control
# byte on what would reach a terminal, no special file replaced by a regular
# one, and where a CSV is written, no cell that a spreadsheet would run as a
# formula.  doc/reliability.md's table lists what is tried and the outcome.
#
# Run by `make check` with $HDSIM and $HDSIM_SRCDIR set; skipped (77) without.
# shellcheck disable=SC2015  # "test && ok || fail" is safe: ok never fails
set -u
if [ -z "${HDSIM:-}" ] || [ ! -x "$HDSIM" ]; then
	echo "attack.sh: HDSIM is not set: skipped"
	exit 77
fi
srcdir=${HDSIM_SRCDIR:-$(dirname "$0")/..}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hdsim-attack.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_DATA_HOME="$tmp/xdg" XDG_CONFIG_HOME="$tmp/config" HOME="$tmp/home"
mkdir -p "$HOME"
unset HDSIM_LESSON_PATH NO_COLOR
. "$(dirname "$0")/check-lib.sh"

# try WANT ARGS...: run hdsim ARGS (stdin from /dev/null) and check the
# common rules; WANT is the exit status expected, or "any" (< 128).  Its
# output is left in $tmp/out and $tmp/err.
try() {
	want=$1
	shift
	timeout 10 "$HDSIM" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 124 ]; then
		fail "hdsim $*: still running after 10 s"
	elif [ "$rc" -ge 128 ]; then
		fail "hdsim $*: died with exit $rc"
	elif [ "$want" != any ] && [ "$rc" != "$want" ]; then
		fail "hdsim $*: exit $rc, expected $want"
		head -c 1000 "$tmp/err" | sed 's/^/    /'
	elif grep -qE 'runtime error:|AddressSanitizer|LeakSanitizer' "$tmp/err"; then
		fail "hdsim $*: sanitizer report"
		head -c 2000 "$tmp/err" | sed 's/^/    /'
	else
		ok
	fi
}

# no_raw_controls FILE WHAT: FILE holds no ESC, no other C0 control but tab
# and newline, no DEL, no C1 control and no bidi override.
no_raw_controls() {
	if LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]' "$1"; then
		fail "$2: a raw control byte would reach the terminal"
		LC_ALL=C grep -naP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]' "$1" |
			head -3 | od -c | head -5 | sed 's/^/    /'
	else
		ok
	fi
}

# no_formula_cells FILE WHAT: no CSV cell starts with = + - @ (quoted or not),
# but for numbers such as -1.5.
no_formula_cells() {
	if python3 - "$1" <<'PY'
import csv, re, sys
bad = 0
with open(sys.argv[1], newline="", encoding="utf-8", errors="replace") as f:
    for row in csv.reader(f):
        for cell in row:
            if cell[:1] in ("=", "+", "-", "@", "\t", "\r") and not re.fullmatch(r"[-+]?[0-9.eE+-]+", cell):
                print("    formula-leading cell:", repr(cell[:60]))
                bad = 1
sys.exit(bad)
PY
	then ok; else fail "$2: a CSV cell a spreadsheet would run as a formula"; fi
}

# ---- output paths ------------------------------------------------------------
# a character device of our own (a null device): written to, not replaced
if mknod "$tmp/null" c 1 3 2>/dev/null; then
	try 0 export --lesson 1 --format csv -o "$tmp/null"
	[ -c "$tmp/null" ] && ok || fail "export -o a character device replaced it with a regular file"
fi
# a FIFO with a reader gets the export; the FIFO stays a FIFO
mkfifo "$tmp/fifo"
(cat "$tmp/fifo" >"$tmp/fifo.got" &)
sleep 0.2
try 0 export --lesson 1 --format json -o "$tmp/fifo"
sleep 0.2
[ -p "$tmp/fifo" ] && ok || fail "export -o a FIFO replaced it with a regular file"
grep -q '"format_version"' "$tmp/fifo.got" 2>/dev/null && ok ||
	fail "export -o a FIFO: its reader got nothing"
# a FIFO nobody reads: refused at once, not waited on
try 1 export --lesson 1 --format json -o "$tmp/fifo"
grep -q 'nothing is reading from it' "$tmp/err" && ok || fail "export -o a FIFO without a reader: no clear message"
# a link to a regular file: the file is replaced, the link kept
echo old >"$tmp/target.csv"
ln -s "$tmp/target.csv" "$tmp/link.csv"
try 0 export --lesson 1 --format csv -o "$tmp/link.csv"
[ -L "$tmp/link.csv" ] && ok || fail "export -o a symbolic link replaced the link"
grep -q '^database,' "$tmp/target.csv" && ok || fail "export -o a symbolic link: its file was not written"
# a folder is no file
try 2 export --lesson 1 --format json -o "$tmp"

# ---- special files read as lessons and profiles --------------------------------
mkfifo "$tmp/lesson.hds" "$tmp/profile.hdp"
try 2 lint "$tmp/lesson.hds"
grep -q 'is not a regular file' "$tmp/err" && ok || fail "lint a FIFO: no clear message"
try 2 run 1 --profile "$tmp/profile.hdp"
grep -q 'is not a regular file' "$tmp/err" && ok || fail "--profile a FIFO: no clear message"
mkdir "$tmp/lessons"
mkfifo "$tmp/lessons/a.hds"
HDSIM_LESSON_PATH="$tmp/lessons" try 0 list
grep -q 'is not a regular file' "$tmp/err" && ok || fail "a FIFO in a lesson folder: no warning"
unset HDSIM_LESSON_PATH

# ---- controls in lesson text ----------------------------------------------------
# lesson TEXT NAME: a lesson file whose title is TEXT (printf escapes)
lesson_with() {
	printf 'hdsim 1\nlesson %s\ntitle "%s"\nscenario a "A"\n  host 1ms\nend\n' "$2" "$1" \
		>"$tmp/$2.hds"
}
lesson_with 'escape \033]0;owned\007 \033[2J' esc
lesson_with 'C1 \302\233 31m' cone
lesson_with 'bidi \342\200\256 reversed' bidi
lesson_with 'isolate \342\201\246 x' isolate
for l in esc cone bidi isolate; do
	for cmd in lint show run; do
		try 2 $cmd "$tmp/$l.hds"
		no_raw_controls "$tmp/err" "hdsim $cmd (a lesson with $l in its title), stderr"
		no_raw_controls "$tmp/out" "hdsim $cmd (a lesson with $l in its title), stdout"
	done
done

# ---- a choice with more options than letters the browser leaves free ------------
{
	printf 'hdsim 1\nlesson many\ntitle "Many"\nquestion q choice "Which?"\n'
	i=0
	while [ $i -lt 30 ]; do
		printf '  option o%d "option %d"\n' $i $i
		i=$((i + 1))
	done
	printf '  answer o1\nend\nscenario a "A"\n  host 1ms\nend\n'
} >"$tmp/many.hds"
try 2 lint "$tmp/many.hds"
grep -q 'at most 7 options' "$tmp/err" && ok || fail "a choice of 30 options: no clear message"

# ---- time that would overflow: lessons within the limits, profiles at their least --
printf 'hdsim 1\nlesson ovf\ntitle "Ovf"\nscenario a "A"\n  repeat 10\n    host 1000000s\n  end\nend\n' \
	>"$tmp/long-host.hds"
printf 'hdsim 1\nlesson ovf\ntitle "Ovf"\nscenario a "A"\n  stream s\n  k: kernel compute 1e24FLOP on s\n  sync s\nend\n' \
	>"$tmp/long-kernel.hds"
for l in long-host long-kernel; do
	try 0 lint "$tmp/$l.hds"
	try 2 run "$tmp/$l.hds"
	grep -q 'the longest run the model can time' "$tmp/err" && ok ||
		fail "run $l.hds: no clear message about the run's length"
done
sed 's/^pcie.h2d = .*/pcie.h2d = 1e-300 GB\/s/' "$srcdir/profiles/h100-sxm.hdp" >"$tmp/tiny-rate.hdp"
try 2 run 1 --profile "$tmp/tiny-rate.hdp"
grep -q 'pcie.h2d is too small' "$tmp/err" && ok || fail "a rate of 1e-300 B/s: no clear message"
# every rate and FLOP rate at the least a profile allows, every lesson
python3 - "$srcdir/profiles/h100-sxm.hdp" "$tmp/slowest.hdp" <<'PY'
import re, sys
out = []
for line in open(sys.argv[1]):
    m = re.match(r"^(\S+) = [0-9.e+-]+ (\S*B/s|\S*FLOP/s)\s*$", line)
    if m:
        line = "%s = %s\n" % (m.group(1), "0.000001 TFLOP/s" if "FLOP" in m.group(2) else "1 KB/s")
    out.append(line.replace('name = "h100-sxm"', 'name = "slowest"'))
open(sys.argv[2], "w").write("".join(out))
PY
for l in $(seq 1 "$(ls "$srcdir"/lessons/*.hds | wc -l)"); do
	try any run "$l" --profile "$tmp/slowest.hdp"
done

# ---- no HOME: nothing is made in the current folder ------------------------------
mkdir -p "$tmp/cwd"
(cd "$tmp/cwd" && env -u HOME -u XDG_DATA_HOME timeout 10 "$HDSIM" progress </dev/null >/dev/null 2>&1)
[ ! -e "$tmp/cwd/.local" ] && ok || fail "with HOME unset, hdsim made .local in the current folder"
# ---- compare: scenarios of wildly different lengths on one axis ---------------
# a nanosecond, an hour and 30 more on one time axis: done in time, and every
# line of the compare block within --width
{
	printf 'hdsim 1\nlesson cmp\ntitle "cmp"\n'
	printf 'scenario tiny "t"\n  host 1ns\nend\nscenario hour "h"\n  host 3600s\nend\n'
	for i in $(seq 1 30); do
		printf 'scenario s%d "s"\n  host %dus\nend\n' "$i" "$i"
	done
} >"$tmp/cmp.hds"
try 0 run "$tmp/cmp.hds" --width 60
grep -q '^hour  *|h*| 3600 s$' "$tmp/out" && ok || fail "compare: no hour-long bar"
wide=$(sed -n '/^Compare/,/^ *time/p' "$tmp/out" | awk 'length($0) > 60' | wc -l)
[ "$wide" -eq 0 ] && ok || fail "compare: $wide lines wider than 60 columns"

# ---- a title that would become code in show --cuda ------------------------------
printf 'hdsim 1\nlesson inj\ntitle "Inj"\nscenario a "x */ int evil; /*\\nimport os"\n  host 1ms\nend\n' \
	>"$tmp/inj.hds"
try 0 show "$tmp/inj.hds" --cuda
grep -q '^import os' "$tmp/out" && fail "show --cuda: a title's line break started a line of Python" || ok
grep -q '^ \* Scenario a: x \* / int evil' "$tmp/out" && ok || fail "show --cuda: a title could close the C comment"

# ---- requirements, remainders and knob corners ---------------------------------
knobbed() { # knobbed NAME LINES: a lesson with one knob n and the lines given
	printf 'hdsim 1\nlesson %s\ntitle "t"\nknob n 0 0 .. 1e300 "n"\n%b\n' "$1" "$2" \
		>"$tmp/$1.hds"
}
knobbed reqesc 'require n > 1 "\033]0;owned\007 \033[2J"\nscenario a\n  host 1ms\nend'
try 2 lint "$tmp/reqesc.hds"
no_raw_controls "$tmp/err" "a require message with escapes, lint's stderr"
try 2 run "$tmp/reqesc.hds"
no_raw_controls "$tmp/err" "a require message with escapes, run's stderr"
knobbed reqzero 'require 1 % n == 0 "m"\nscenario a\n  host 1ms\nend'
try 2 lint "$tmp/reqzero.hds"
knobbed modzero 'scenario a\n  host 1ms % (n * 1s)\nend'
try 2 lint "$tmp/modzero.hds"
grep -q 'division by zero' "$tmp/err" && ok || fail "a remainder by zero: no clear message"
knobbed huge 'scenario a\n  repeat n + 1\n    host 1us\n  end\nend'
try 2 lint "$tmp/huge.hds"
grep -q 'knob n = 1e+300 (its max)' "$tmp/err" && ok || fail "a knob's max that breaks: not named"
# many files of one id: each clash reported, the command still quick
mkdir "$tmp/clash"
i=0
while [ $i -lt 200 ]; do
	printf 'hdsim 1\nlesson same\ntitle "t%d"\nscenario a\n  host %dus\nend\n' $i $((i + 1)) \
		>"$tmp/clash/l$i.hds"
	i=$((i + 1))
done
HDSIM_LESSON_PATH="$tmp/clash" try 0 list
[ "$(grep -c "lesson id 'same' is already the id of" "$tmp/err")" = 199 ] && ok ||
	fail "199 clashes in a lesson folder: not each reported"
try 2 lint "$tmp/clash"

finish attack.sh
