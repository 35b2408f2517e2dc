#!/bin/sh
# format.sh - every C file of the tree is formatted as .clang-format says
# (doc/style.md).  clang-format 14 is the reference (Debian 12's); with
# another version, or none, the test is skipped, since versions format the
# same file differently.  To fix a file: clang-format -i FILE.
set -u
src=${HDSIM_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
cf=${CLANG_FORMAT:-clang-format}
if ! command -v "$cf" >/dev/null 2>&1; then
	echo "format.sh: $cf is not installed (Debian: apt-get install clang-format): skipped"
	exit 77
fi
case $("$cf" --version) in
*" version 14."*) ;;
*)
	echo "format.sh: $("$cf" --version) is not clang-format 14: skipped"
	exit 77
	;;
esac
cd "$src" || exit 99
files=$(find base ir lang profile sim store kernels real run render export tui cli tests \
	-name '*.[ch]' 2>/dev/null; echo hdsim.c)
bad=0
n=0
for f in $files; do
	n=$((n + 1))
	if ! "$cf" --style=file --dry-run -Werror "$f" >/dev/null 2>&1; then
		echo "FAIL: $f is not formatted as .clang-format says (clang-format -i $f)"
		bad=$((bad + 1))
	fi
done
echo "format.sh: $((n - bad)) passed, $bad failed"
[ "$bad" -eq 0 ]
