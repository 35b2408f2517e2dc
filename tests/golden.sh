#!/bin/sh
# golden.sh - what a learner sees must not change by accident: `hdsim run N
# --json` for every built-in lesson on every built-in profile, compared with
# the digests recorded in tests/golden/run-json.sha256.
#
#   tests/golden.sh            compare (run by `make check`)
#   tests/golden.sh --record   record anew, after a change that is meant to
#                              alter what a run prints (say why in the commit)
#
# The outputs are recorded as SHA-256 digests (the JSON is ~30 MB in all); on
# a mismatch the test names the lesson and profile, and `hdsim run N --json
# --profile P` before and after shows the difference.
# shellcheck disable=SC2015  # "test && ok || fail" is safe: ok never fails
set -u

if [ -z "${HDSIM:-}" ] || [ -z "${HDSIM_SRCDIR:-}" ] || [ ! -x "$HDSIM" ]; then
	echo "golden.sh: HDSIM and HDSIM_SRCDIR are not set: skipped"
	exit 77
fi
unset HDSIM_LESSON_PATH NO_COLOR
want="$HDSIM_SRCDIR/tests/golden/run-json.sha256"
tmp=$(mktemp "${TMPDIR:-/tmp}/hdsim-golden.XXXXXX") || exit 99
trap 'rm -f "$tmp"' EXIT INT TERM

. "$(dirname "$0")/check-lib.sh"

profiles="h100-sxm h200-sxm a100-pcie rtx4090 gen3-v100"
# every built-in lesson, by number: a new one needs its digests recorded
lessons=$(seq 1 "$(ls "$HDSIM_SRCDIR"/lessons/*.hds | wc -l)")
for p in $profiles; do
	for l in $lessons; do
		d=$("$HDSIM" run "$l" --json --profile "$p" 2>&1 | sha256sum | cut -d' ' -f1)
		echo "$p $l $d"
	done
done >"$tmp"

if [ "${1:-}" = --record ]; then
	cp "$tmp" "$want"
	echo "golden.sh: recorded $(wc -l <"$want") digests in $want"
	exit 0
fi

while read -r p l d; do
	w=$(awk -v p="$p" -v l="$l" '$1 == p && $2 == l { print $3 }' "$want")
	if [ -z "$w" ]; then
		fail "no recorded digest for lesson $l on $p"
	elif [ "$w" != "$d" ]; then
		fail "hdsim run $l --json --profile $p differs from the recorded output"
	else
		ok
	fi
done <"$tmp"
finish golden.sh
