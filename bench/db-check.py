#!/usr/bin/env python3
"""db-check.py DB - integrity check of an hdsim database and whether every
run in it is whole (each measured run paired, each run with lanes and
spans). Prints one line; exit 1 if anything is wrong. For GPU machines,
where the sqlite3 shell may be missing but Python's module is there."""
import sqlite3
import sys

db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
ok = db.execute("PRAGMA integrity_check").fetchone()[0]
fk = db.execute("PRAGMA foreign_key_check").fetchall()
runs = db.execute("SELECT count(*) FROM runs").fetchone()[0]
empty = db.execute("SELECT count(*) FROM runs r WHERE NOT EXISTS "
                   "(SELECT 1 FROM spans s WHERE s.run_id = r.id)").fetchone()[0]
unpaired = db.execute("SELECT count(*) FROM runs WHERE source = 'measured' "
                      "AND pair_run IS NULL").fetchone()[0]
lessons = db.execute("SELECT group_concat(lesson || ':' || n) FROM (SELECT lesson, "
                     "count(*) n FROM runs GROUP BY lesson)").fetchone()[0]
print(f"integrity {ok}; foreign keys {'ok' if not fk else fk}; {runs} runs "
      f"({lessons}); runs without spans {empty}; measured runs unpaired {unpaired}")
sys.exit(0 if ok == "ok" and not fk and empty == 0 and unpaired == 0 else 1)
