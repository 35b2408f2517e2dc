#!/bin/sh
# lint_bad.sh - every bad lesson in tests/bad is rejected with the right
# position and message, and exit status 2.
#
# Each fixture's first line says what is expected:
#     # expect: LINE:COL: message fragment
# and `hdsim lint FILE` must exit 2 and print "FILE:LINE:COL: error: ..."
# with the fragment in it.  Skips (77) when $HDSIM is not a program.

if [ -z "$HDSIM" ] || [ ! -x "$HDSIM" ]; then
	echo "lint_bad.sh: HDSIM is not set to an executable hdsim; skipped"
	exit 77
fi
srcdir=${HDSIM_SRCDIR:-$(dirname "$0")/..}
dir="$srcdir/tests/bad"
tmp=${TMPDIR:-/tmp}/lint_bad.$$
trap 'rm -f "$tmp"' EXIT INT TERM

fail=0
n=0
for f in "$dir"/*.hds; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	expect=$(sed -n '1s/^# expect: //p' "$f")
	if [ -z "$expect" ]; then
		echo "FAIL $f: no '# expect: LINE:COL: message' first line"
		fail=1
		continue
	fi
	pos=${expect%%: *}
	msg=${expect#*: }
	"$HDSIM" lint "$f" >/dev/null 2>"$tmp"
	rc=$?
	if [ "$rc" -ne 2 ]; then
		echo "FAIL $f: exit status $rc, expected 2"
		sed 's/^/    /' "$tmp"
		fail=1
		continue
	fi
	if ! grep -qF -- "$f:$pos: error: " "$tmp"; then
		echo "FAIL $f: no '$f:$pos: error:' in:"
		sed 's/^/    /' "$tmp"
		fail=1
		continue
	fi
	if ! grep -qF -- "$msg" "$tmp"; then
		echo "FAIL $f: message lacks '$msg':"
		sed 's/^/    /' "$tmp"
		fail=1
		continue
	fi
	# the source line and a caret follow the message
	if ! grep -q '^[[:space:]]*\^$' "$tmp"; then
		echo "FAIL $f: no caret line in:"
		sed 's/^/    /' "$tmp"
		fail=1
		continue
	fi
done
if [ "$n" -eq 0 ]; then
	echo "lint_bad.sh: no fixtures in $dir"
	exit 1
fi
[ "$fail" -eq 0 ] && echo "lint_bad.sh: $n bad lessons rejected as expected"
exit $fail
