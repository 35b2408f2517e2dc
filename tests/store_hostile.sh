#!/bin/sh
# store_hostile.sh - databases made by someone else.  Copies of a real
# database (check_export's fixture: runs paired, claims, a machine, answers)
# are spoiled with Python's sqlite3 module: NULLs in every column hdsim reads
# (behind a schema that still reads NOT NULL, and in a table made again
# without it), INT64_MIN / INT64_MAX times and sizes, a span ending before
# it starts, indexes out of range, text where numbers go, a table replaced
# by a view over WITH RECURSIVE, triggers.  `hdsim progress`, `hdsim export
# --format csv|json|svg|html|md` and `hdsim export --class` on each must end
# within 10 s with an exit status below 128, refuse with a message naming
# the database, and leave it as it was with no file beside it.
#
# Then reading changes nothing: a read-only open leaves no -wal/-shm file
# and keeps the file's bytes and mtime, and its owner can still write.  Run
# as root, the same checks run as nobody (setpriv): a database in a folder
# the reader cannot write is read; an unreadable file, a folder a writer
# cannot write and a read-only file each get their own message.
#
# Run by `make check` with $HDSIM set; exits 77 (skipped) without it,
# without tests/check_export and tests/store_writer, python3 or timeout.
set -u

if [ -z "${HDSIM:-}" ] || [ ! -x "$HDSIM" ]; then
	echo "store_hostile.sh: HDSIM is not set: skipped"
	exit 77
fi
mk=${CHECK_EXPORT:-./tests/check_export}
w=${STORE_WRITER:-./tests/store_writer}
for need in "$mk" "$w"; do
	if [ ! -x "$need" ]; then
		echo "store_hostile.sh: no $need: skipped"
		exit 77
	fi
done
for cmd in python3 timeout; do
	if ! command -v "$cmd" >/dev/null 2>&1; then
		echo "store_hostile.sh: $cmd is not installed: skipped"
		exit 77
	fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hdsim-hostile.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
XDG_DATA_HOME=$tmp/xdg
HOME=$tmp/home
export XDG_DATA_HOME HOME
mkdir -p "$HOME"

. "$(dirname "$0")/check-lib.sh"

good=$tmp/good.db
"$mk" --make-db "$good" || { echo "store_hostile.sh: cannot write the fixture database"; exit 99; }

# ---- spoiled copies ------------------------------------------------------------
# Each case: NAME, then SQL run on a copy.  "loose:TABLE:SQL" runs SQL with
# TABLE's NOT NULL and CHECK constraints out of the way, then puts the
# schema's text back, so the file still claims them.
mkdir "$tmp/bad"
python3 - "$good" "$tmp/bad" <<'EOF' || { echo "store_hostile.sh: python3 failed"; exit 99; }
import shutil, sqlite3, sys

good, out = sys.argv[1], sys.argv[2]
MIN, MAX = -2**63, 2**63 - 1
SPIN = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)"

def con(path):
    return sqlite3.connect(path, isolation_level=None)

def loose(path, table, sql):
    db = con(path)
    text = db.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    db.execute("PRAGMA writable_schema = ON")
    db.execute("UPDATE sqlite_master SET sql = ? WHERE name = ?",
               (text.replace("NOT NULL", ""), table))
    db.close()
    db = con(path)
    db.execute("PRAGMA ignore_check_constraints = ON")
    db.executescript(sql)
    db.execute("PRAGMA writable_schema = ON")
    db.execute("UPDATE sqlite_master SET sql = ? WHERE name = ?", (text, table))
    db.close()

def remade(path, table, sql):
    """table made again without its constraints (same columns), then sql."""
    db = con(path)
    db.executescript("PRAGMA foreign_keys = OFF; DROP VIEW progress_latest;"
                     f"CREATE TABLE x AS SELECT * FROM {table}; DROP TABLE {table};"
                     f"ALTER TABLE x RENAME TO {table};" + sql)
    db.close()

def plain(path, sql):
    db = con(path)
    db.execute("PRAGMA ignore_check_constraints = ON")
    db.executescript(sql)
    db.close()

def cols(table):
    db = con(good)
    names = [r[1] for r in db.execute(f"PRAGMA table_info({table})") if r[1] != "id"]
    db.close()
    return names

def nulls(table):
    return f"UPDATE {table} SET " + ", ".join(f"{c} = NULL" for c in cols(table)) + ";"

cases = {
    "null-runs": (loose, "runs", nulls("runs")),
    "null-lanes": (loose, "lanes", nulls("lanes")),
    "null-spans": (loose, "spans", nulls("spans")),
    "null-claims": (loose, "claim_results", nulls("claim_results")),
    "null-machines": (loose, "machines", nulls("machines")),
    "null-learners": (loose, "learners", nulls("learners")),
    "null-progress": (loose, "progress", nulls("progress")),
    "null-profiles": (loose, "profiles", nulls("profiles")),
    "remade-progress": (remade, "progress", nulls("progress")),
    "remade-spans": (remade, "spans", nulls("spans")),
    "checks": (plain, "UPDATE runs SET backend = 'x', status = 'z', warmup = -5;"
               "UPDATE claim_results SET outcome = 'maybe';"
               "UPDATE progress SET correct = 7, confidence = 99, seconds = -1, hints = -5;"),
    "int64-min": (plain, f"UPDATE spans SET start_ps = {MIN}, end_ps = {MIN}, bytes = {MIN},"
                  f" spread_ps = {MIN}; UPDATE runs SET makespan_ps = {MIN};"),
    "int64-max": (plain, f"UPDATE spans SET start_ps = {MAX}, end_ps = {MAX}, bytes = {MAX},"
                  f" spread_ps = {MAX}; UPDATE runs SET makespan_ps = {MAX};"),
    "span-wide": (plain, f"UPDATE spans SET start_ps = {MIN}, end_ps = {MAX};"),
    "span-backwards": (plain, "UPDATE spans SET start_ps = end_ps + 1000;"),
    "span-op": (plain, f"UPDATE spans SET op = 2147483647, iter = {MAX};"),
    "span-lane": (plain, "UPDATE spans SET lane = 4294967296;"),
    "span-text": (plain, "UPDATE spans SET start_ps = 'soon', kind = 7, why = 3.5;"),
    "lane-kind": (plain, f"UPDATE lanes SET kind = 999, rank = {MIN};"),
    "lane-gap": (plain, "UPDATE lanes SET idx = idx + 100 WHERE idx > 0;"),
    "view-spans": (plain, f"DROP TABLE spans; CREATE VIEW spans AS {SPIN} SELECT 1 AS run_id,"
                   " x AS seq, 0 AS lane, 0 AS op, 0 AS iter, 'kernel' AS kind, NULL AS why,"
                   " x AS start_ps, x + 1 AS end_ps, NULL AS spread_ps, 0 AS device,"
                   " NULL AS stream, 0 AS bytes, NULL AS copy_kind, NULL AS label FROM c;"),
    "view-progress": (plain, f"DROP VIEW progress_latest; DROP TABLE progress;"
                      f" CREATE VIEW progress AS {SPIN} SELECT x AS id, 1 AS learner_id,"
                      " 'l' AS lesson, 'q' AS question, 'a' AS answer, 1 AS correct,"
                      " 1 AS confidence, 1.0 AS seconds, 0 AS hints, NULL AS profile,"
                      " 'v' AS version, 'c' AS created FROM c;"),
    "view-latest": (plain, f"DROP VIEW progress_latest; CREATE VIEW progress_latest AS"
                    f" {SPIN} SELECT x FROM c;"),
    "trigger": (plain, "CREATE TRIGGER spin AFTER INSERT ON progress BEGIN SELECT count(*)"
                f" FROM ({SPIN} SELECT x FROM c); END;"),
}
for name, (fn, *args) in cases.items():
    dst = f"{out}/{name}.db"
    shutil.copy(good, dst)
    fn(dst, *args)
EOF

# what each case must say (an extended regular expression), when it is refused
says() {
	case $1 in
	null-*) echo "" ;;
	remade-*) echo "is not defined as hdsim defines it" ;;
	view-latest) echo "view progress_latest is not defined as hdsim defines it" ;;
	view-*) echo "${1#view-} is a view, not a table: this is not a database hdsim wrote" ;;
	trigger) echo "has a trigger spin, which hdsim never makes" ;;
	span-backwards) echo "before it starts" ;;
	lane-gap) echo "are not numbered 0, 1, 2" ;;
	# a writer's quick_check sees broken CHECK constraints; readers see values
	checks) echo "not a database hdsim wrote|is damaged \(CHECK constraint failed" ;;
	*) echo "this is not a database hdsim wrote" ;;
	esac
}

# try DB HOW: run one reader on DB; its status in $rc, its messages in $tmp/err
try() {
	rm -rf "$tmp/out"
	mkdir "$tmp/out"
	case $2 in
	progress) timeout 10 "$HDSIM" progress --learner ada --db "$1" >/dev/null 2>"$tmp/err" ;;
	class) timeout 10 "$HDSIM" export --class "$1" -o "$tmp/out" >/dev/null 2>"$tmp/err" ;;
	*) timeout 10 "$HDSIM" export --format "$2" --db "$1" -o "$tmp/out/x" >/dev/null \
		2>"$tmp/err" ;;
	esac
	rc=$?
}

readers="progress csv json svg html md class"
for f in "$tmp"/bad/*.db; do
	name=$(basename "$f" .db)
	want=$(says "$name")
	cp "$f" "$tmp/orig"
	refused=0
	for how in $readers; do
		try "$f" "$how"
		if [ "$rc" -ge 124 ]; then
			fail "$name ($how): exit $rc (killed, or past 10 s)"
		elif [ "$rc" != 0 ] && [ "$rc" != 2 ]; then
			fail "$name ($how): exit $rc, expected 0 or 2"
		elif [ "$rc" = 2 ] && ! grep -qF -- "$f: error: " "$tmp/err"; then
			fail "$name ($how): no '$f: error: ...' in: $(cat "$tmp/err")"
		elif [ "$rc" = 2 ] && ! grep -qE -- "$want" "$tmp/err"; then
			fail "$name ($how): no '$want' in: $(cat "$tmp/err")"
		else
			ok
		fi
		[ "$rc" = 2 ] && refused=1
		cmp -s "$f" "$tmp/orig" || fail "$name ($how): the database was changed"
		for side in wal shm journal; do
			[ -e "$f-$side" ] && fail "$name ($how): left $f-$side" && rm -f "$f-$side"
		done
	done
	# every spoiled copy is refused by some reader: none goes unnoticed
	[ "$refused" = 1 ] || fail "$name: no reader refused it"
done

# ---- a read changes nothing ------------------------------------------------------
stamp() { python3 -c 'import os, sys; print(os.stat(sys.argv[1]).st_mtime_ns)' "$1"; }
read_leaves_nothing() {
	for how in json class; do
		before=$(stamp "$1")
		cp "$1" "$tmp/orig"
		try "$1" "$how"
		[ "$rc" = 0 ] || fail "reading $1 ($how): exit $rc: $(cat "$tmp/err")"
		cmp -s "$1" "$tmp/orig" || fail "reading $1 ($how) changed its bytes"
		[ "$(stamp "$1")" = "$before" ] || fail "reading $1 ($how) changed its mtime"
		for side in wal shm journal; do
			[ -e "$1-$side" ] && fail "reading $1 ($how) left $1-$side"
		done
		ok
	done
}
read_leaves_nothing "$good"
# and its owner writes to it afterwards
"$w" write "$good" 1 10 >/dev/null 2>"$tmp/err" || fail "the owner cannot write: $(cat "$tmp/err")"
read_leaves_nothing "$good"

# ---- a listing of answers reads only -----------------------------------------------
# `hdsim progress` on a WAL database this user may write opens it read-only: no
# -wal or -shm file, not even for a moment (its folder's mtime stays), and the
# file's bytes and mtime stay.  An older schema is still upgraded.
byte() { od -An -tu1 -j"$2" -N1 "$1" | tr -d ' '; }
listing=$tmp/listing
mkdir "$listing"
cp "$good" "$listing/wal.db"
db=$listing/wal.db
[ "$(byte "$db" 18)$(byte "$db" 19)" = 22 ] || fail "$db is not a WAL database"
cp "$db" "$tmp/orig"
touch -d '2001-01-01 00:00:00' "$db" "$listing"
before=$(stamp "$db")
folder=$(stamp "$listing")
"$HDSIM" progress --learner ada --db "$db" >"$tmp/list" 2>"$tmp/err" ||
	fail "progress on $db: exit $?: $(cat "$tmp/err")"
grep -q "^Answers of ada" "$tmp/list" || fail "progress on $db listed no answers of ada"
cmp -s "$db" "$tmp/orig" || fail "progress changed the bytes of $db"
[ "$(stamp "$db")" = "$before" ] || fail "progress changed the mtime of $db"
[ "$(stamp "$listing")" = "$folder" ] ||
	fail "progress made or removed a file beside $db: $(ls "$listing")"
for side in wal shm journal; do
	[ -e "$db-$side" ] && fail "progress left $db-$side"
done
ok
# schema 1 (before learners' answers): progress upgrades it where it may write
cp "$good" "$listing/old.db"
db=$listing/old.db
python3 - "$db" <<'EOF' || fail "python3 cannot make a schema 1 database"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.executescript("DROP VIEW progress_latest; DROP TABLE progress; DROP TABLE learners;"
                 " DROP TABLE snapshot_options; DROP TABLE snapshot_questions;"
                 " DROP TABLE lesson_snapshots; DROP TABLE run_repeats;"
                 " PRAGMA user_version = 1; PRAGMA journal_mode = DELETE;")
db.close()
EOF
[ "$(byte "$db" 63)" = 1 ] || fail "$db is not at schema 1"
"$HDSIM" progress --learner ada --db "$db" >"$tmp/list" 2>"$tmp/err" ||
	fail "progress on $db (schema 1): exit $?: $(cat "$tmp/err")"
grep -q "^No answers recorded for ada" "$tmp/list" ||
	fail "progress on $db (schema 1) said: $(cat "$tmp/list")"
# (through every migration to the schema of a database this hdsim makes:
# $good's, 5 since measured runs' repeats)
[ "$(byte "$db" 63)" = 5 ] && [ "$(byte "$good" 63)" = 5 ] && ok ||
	fail "progress did not upgrade $db to schema 5 (it is at $(byte "$db" 63), $good at $(byte "$good" 63))"

# ---- another user ------------------------------------------------------------------
# As root: nobody reads root's database in a folder nobody cannot write.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 &&
    setpriv --reuid=nobody --regid=nogroup --clear-groups "$HDSIM" --version >/dev/null 2>&1
then
	as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
	shared=$tmp/shared
	mkdir -m 0755 "$shared"
	chmod 0755 "$tmp"
	cp "$good" "$shared/class.db"
	chmod 0644 "$shared/class.db"
	db=$shared/class.db
	cp "$db" "$tmp/orig"
	for how in json class; do
		rm -rf "$tmp/out"
		mkdir -m 0777 "$tmp/out"
		case $how in
		json) as_nobody "$HDSIM" export --format json --db "$db" -o "$tmp/out/x" \
			>/dev/null 2>"$tmp/err" ;;
		class) as_nobody "$HDSIM" export --class "$db" -o "$tmp/out" >/dev/null \
			2>"$tmp/err" ;;
		esac
		rc=$?
		[ "$rc" = 0 ] ||
			fail "nobody reading $db ($how): exit $rc:" "$(cat "$tmp/err")"
		ls "$shared" | grep -q -- '-\(wal\|shm\|journal\)$' &&
			fail "nobody's read ($how) left a file beside $db"
		cmp -s "$db" "$tmp/orig" || fail "nobody's read ($how) changed $db"
		ok
	done
	# each permission case has its own message, naming the path
	expect() {
		want=$1
		shift
		as_nobody "$@" >/dev/null 2>"$tmp/err"
		rc=$?
		if [ "$rc" = 0 ] || [ "$rc" -ge 124 ]; then
			fail "as nobody, $*: exit $rc"
		elif ! grep -qF -- "$db: error: " "$tmp/err" ||
		    ! grep -qF -- "$want" "$tmp/err"; then
			fail "as nobody, $*: no '$db: error: ...$want' in:" "$(cat "$tmp/err")"
		else
			ok
		fi
	}
	expect "the database file is read-only" "$HDSIM" progress --reset --learner ada --db "$db"
	chmod 0666 "$db"
	expect "cannot write in the database's folder $shared" "$w" write "$db" 1 10
	chmod 0600 "$db"
	expect "cannot read the database file: Permission denied" \
		"$HDSIM" export --format json --db "$db"
	expect "cannot read the database file: Permission denied" "$HDSIM" export --class "$db"
	chmod 0700 "$tmp"
else
	echo "store_hostile.sh: not root or no setpriv: the checks as another user are skipped"
fi

# ---- text from someone else's database on a terminal and in a spreadsheet --------
# answers and lesson names holding terminal escapes, C1 and bidi controls, and
# a learner whose name is a formula
inj=$tmp/inject.db
cp "$good" "$inj"
python3 - "$inj" <<'EOF2'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE learners SET name = '=HYPERLINK(\"http://x\")' WHERE id = (SELECT min(id) FROM learners)")
c.execute("UPDATE progress SET answer = 'a\x1b]0;owned\x07b\u009b31m\u202e', "
	  "lesson = 'l\x1b[2Jx', question = '+q' ")
c.commit()
EOF2
who=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT min(name) FROM learners WHERE name LIKE \"=%\"').fetchone()[0])" "$inj")
# on a terminal (a pty made by script(1)): no raw control byte
if command -v script >/dev/null 2>&1; then
	for args in "progress --learner $who" "export --format csv --table progress" \
		"export --format md"; do
		# shellcheck disable=SC2086
		script -qec "timeout 10 $HDSIM $args --db $inj" /dev/null </dev/null >"$tmp/tty" 2>&1
		if LC_ALL=C grep -qP '\x1b[\]\[]|\xc2\x9b|\xe2\x80\xae' "$tmp/tty"; then
			fail "hdsim $args on a terminal: a raw control sequence from the database"
		else
			ok
		fi
	done
fi
# in a CSV: no cell a spreadsheet would run
timeout 10 "$HDSIM" export --format csv --table progress --db "$inj" >"$tmp/p.csv" 2>/dev/null
if python3 - "$tmp/p.csv" <<'EOF2'
import csv, sys
bad = [c for row in csv.reader(open(sys.argv[1], newline="")) for c in row
       if c[:1] in ("=", "+", "@") or (c[:1] == "-" and not c[1:].replace(".", "").isdigit())]
sys.exit(1 if bad else 0)
EOF2
then ok; else fail "export csv: a formula-leading cell from the database"; fi
mkdir -p "$tmp/class"
timeout 10 "$HDSIM" export --class "$inj" -o "$tmp/class" >/dev/null 2>&1
if grep -q '^=\|,=\|^"=\|,"=' "$tmp/class/answers.csv" "$tmp/class/gradebook.csv"; then
	fail "export --class: a formula-leading cell from a learner's name"
else
	ok
fi

finish store_hostile.sh
