#!/bin/sh
# store_faults.sh - a database hdsim cannot use is refused with a clear
# message and left byte for byte as it was: a damaged hdsim database (junk
# over some pages, or cut short), another program's SQLite file, a text file,
# binary junk, a read-only database.  Each is tried by a writer (the store's
# insert path) and by `hdsim progress` (read) and `progress --reset` (write).
#
# Run by `make check` with $HDSIM set; skipped (77) without it or without
# tests/store_writer or python3 (which makes the foreign SQLite file).
set -u
w=${STORE_WRITER:-./tests/store_writer}
if [ -z "${HDSIM:-}" ] || [ ! -x "$HDSIM" ] || [ ! -x "$w" ]; then
	echo "store_faults.sh: needs \$HDSIM and $w: skipped"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hdsim-storef.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
n=0

# try NAME FRAGMENT: every access to $tmp/NAME fails with FRAGMENT in its
# message and leaves the file (and no journal beside it) as it was.
try() {
	f="$tmp/$1"
	cp "$f" "$tmp/orig"
	for how in writer progress reset; do
		case $how in
		writer) "$w" write "$f" 1 10 >/dev/null 2>"$tmp/err"; rc=$? ;;
		progress) "$HDSIM" progress --db "$f" --learner x >/dev/null 2>"$tmp/err"; rc=$? ;;
		reset) "$HDSIM" progress --reset --db "$f" --learner x >/dev/null 2>"$tmp/err"; rc=$? ;;
		esac
		n=$((n + 1))
		if [ "$rc" = 0 ]; then
			echo "FAIL: $1 ($how): exit 0"
			fail=1
		elif [ "$how" != writer ] && [ "$rc" != 2 ]; then
			echo "FAIL: $1 ($how): exit $rc, expected 2"
			fail=1
		fi
		if ! grep -qF -- "$f: error: " "$tmp/err" || ! grep -qF -- "$2" "$tmp/err"; then
			echo "FAIL: $1 ($how): no '$f: error: ...$2...' in:"
			sed 's/^/    /' "$tmp/err"
			fail=1
		fi
		if ! cmp -s "$f" "$tmp/orig"; then
			echo "FAIL: $1 ($how): the file was changed"
			fail=1
			cp "$tmp/orig" "$f"
		fi
		if [ -e "$f-wal" ] || [ -e "$f-journal" ]; then
			echo "FAIL: $1 ($how): a journal was left beside it"
			fail=1
			rm -f "$f-wal" "$f-shm" "$f-journal"
		fi
	done
}

# A healthy database of 30 runs, then copies of it damaged two ways.
"$w" write "$tmp/good.db" 30 400 || { echo "FAIL: cannot write a database"; exit 1; }
pages=$(($(wc -c <"$tmp/good.db") / 4096))
cp "$tmp/good.db" "$tmp/junk-pages.db"
# deterministic junk over ten pages in the middle
awk 'BEGIN { srand(7); for (i = 0; i < 40960; i++) printf "%c", 1 + int(rand() * 254) }' \
	>"$tmp/junk" 2>/dev/null
dd if="$tmp/junk" of="$tmp/junk-pages.db" bs=4096 seek=$((pages / 2)) conv=notrunc \
	2>/dev/null
try junk-pages.db "the database is damaged"
head -c $((pages / 2 * 4096)) "$tmp/good.db" >"$tmp/cut.db"
try cut.db "the database is damaged"

# The healthy one still works: the checks above did not lock or spoil it.
n=$((n + 1))
"$w" write "$tmp/good.db" 1 400 >/dev/null 2>"$tmp/err" ||
	{ echo "FAIL: the healthy database refused a write:"; cat "$tmp/err"; fail=1; }

# Another program's SQLite database.
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("CREATE TABLE grades (who TEXT, mark INT)")
db.execute("INSERT INTO grades VALUES (\"ada\", 1)")
db.commit()' "$tmp/foreign.db"
	try foreign.db "not an hdsim database"
fi
printf 'these are my notes, not a database\n' >"$tmp/notes.db"
try notes.db "not a database"
cp "$tmp/junk" "$tmp/binary.db"
try binary.db "not a database"

# A read-only database: writing is refused (root too), reading works.
cp "$tmp/good.db" "$tmp/ro.db"
chmod 0444 "$tmp/ro.db"
cp "$tmp/ro.db" "$tmp/orig"
for how in writer reset; do
	n=$((n + 1))
	case $how in
	writer) "$w" write "$tmp/ro.db" 1 10 >/dev/null 2>"$tmp/err"; rc=$? ;;
	reset) "$HDSIM" progress --reset --db "$tmp/ro.db" --learner x >/dev/null 2>"$tmp/err"
		rc=$? ;;
	esac
	if [ "$rc" = 0 ] || ! grep -qF "$tmp/ro.db: error: " "$tmp/err" ||
	    ! grep -qF "read-only" "$tmp/err"; then
		echo "FAIL: read-only database ($how): exit $rc:"
		sed 's/^/    /' "$tmp/err"
		fail=1
	fi
	cmp -s "$tmp/ro.db" "$tmp/orig" || { echo "FAIL: read-only database ($how) changed"; fail=1; }
done
n=$((n + 1))
"$HDSIM" progress --db "$tmp/ro.db" --learner x >/dev/null 2>"$tmp/err" ||
	{ echo "FAIL: a read-only database cannot be read:"; cat "$tmp/err"; fail=1; }
cmp -s "$tmp/ro.db" "$tmp/orig" || { echo "FAIL: reading a read-only database changed it"; fail=1; }

[ "$fail" = 0 ] && echo "store_faults.sh: $n checks: each bad database refused, none changed"
exit $fail
