# check-lib.sh - what the shell tests share: count checks and failures.
# Sourced (". tests/check-lib.sh"); the test ends with `finish NAME`.
fails=0
n=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
ok() {
	n=$((n + 1))
}
# finish NAME: say how it went; the exit status is 0 only with no failure
finish() {
	echo "$1: $n checks passed, $fails failed"
	[ "$fails" -eq 0 ]
}
