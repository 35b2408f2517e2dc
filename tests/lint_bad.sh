#!/bin/sh
# lint_bad.sh - every bad lesson in tests/bad is rejected with the right
# position and message, and exit status 2.
#
# Each fixture's first line says what is expected:
#     # expect: LINE:COL: message fragment
# and `hdsim lint FILE` must exit 2 and print "FILE:LINE:COL: error: ..."
# with the fragment in it.  A `require` of a shipped lesson refuses what
# --set gives it with its message too.  Skips (77) when $HDSIM is not a
# program.

if [ -z "$HDSIM" ] || [ ! -x "$HDSIM" ]; then
	echo "lint_bad.sh: HDSIM is not set to an executable hdsim; skipped"
	exit 77
fi
srcdir=${HDSIM_SRCDIR:-$(dirname "$0")/..}
dir="$srcdir/tests/bad"
HDSIM_SRCDIR_LESSONS="$srcdir/lessons"
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
# A `require` refuses values given by --set as lint refuses the defaults: with
# the lesson's message, whatever the order of the assignments.
l="$HDSIM_SRCDIR_LESSONS/20-capstone-input-pipeline.hds"
for set in "--set batches=7" "--set batches=6 --set batches=9"; do
	# shellcheck disable=SC2086  # the assignments are words
	"$HDSIM" run "$l" $set >/dev/null 2>"$tmp"
	rc=$?
	if [ "$rc" -ne 2 ] || ! grep -qF "error: batches must be an even number" "$tmp"; then
		echo "FAIL run $set: exit status $rc, expected 2 with the lesson's message:"
		sed 's/^/    /' "$tmp"
		fail=1
	fi
done
if ! "$HDSIM" run "$l" --set batches=6 --json >/dev/null 2>"$tmp" && [ -s "$tmp" ]; then
	echo "FAIL run --set batches=6: an even value is refused:"
	sed 's/^/    /' "$tmp"
	fail=1
fi
# A condition that never holds at the values lint tries is a warning, not an
# error: exit status 0, the position and the caret.
cat >"$tmp.hds" <<'EOF'
hdsim 1
lesson warn
title "A lesson with a dead branch"
knob steps 100 10 .. 1000 "training steps"
scenario a
  buffer loss device 4B
  repeat steps as i
    if i > steps
      read loss 4B
    end
  end
end
EOF
"$HDSIM" lint "$tmp.hds" >/dev/null 2>"$tmp"
rc=$?
if [ "$rc" -ne 0 ] ||
	! grep -qF "$tmp.hds:8:5: warning: the condition 'i > steps' never holds where it is reached" "$tmp" ||
	! grep -q '^    \^$' "$tmp"; then
	echo "FAIL a condition that never holds: exit status $rc, expected 0 and a warning:"
	sed 's/^/    /' "$tmp"
	fail=1
fi
rm -f "$tmp.hds"
if [ "$n" -eq 0 ]; then
	echo "lint_bad.sh: no fixtures in $dir"
	exit 1
fi
[ "$fail" -eq 0 ] && echo "lint_bad.sh: $n bad lessons rejected as expected"
exit $fail
