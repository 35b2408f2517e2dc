#!/bin/sh
# costs.sh - inputs that once cost more than linearly, each timed with
# /usr/bin/time -v (wall time and peak resident memory).
#
#   bench/costs.sh HDSIM [WORKDIR]
#
# HDSIM is the binary to time; the inputs are generated into WORKDIR
# (default: a new temporary folder; inputs already there are kept), then
# each case runs under `timeout` ($TIMEOUT seconds, default 120); $CASES
# names the cases to run (default: all).  One line per case on stdout:
#
#   case  exit  wall_s  max_rss_MiB  what
#
# The cases (bench/results/2026-11-24-costs/README.md has the figures):
#   claims      10,000 claims over a scenario of 100,000 spans: a loop of
#               1,000 labelled statements run 100 times
#   claimsflat  the same claims over 100,000 statements, 1,000 labelled
#   class       hdsim export --class over 1,000 learners' databases of 100
#               answers each (20 lessons of 5 questions)
#   bcast       a broadcast of 4096 TiB on 8 ranks (h100-sxm)
#   chunk1      lesson 17 on h100-sxm with coll.chunk = 1 B
#   ar4096      a 1 GiB ring all-reduce on 4096 ranks (h100-sxm)
#   ar16384     the same on 16,384 ranks (past the rank limit before 2026-11-24)
set -u
bin=$1
work=${2:-$(mktemp -d /tmp/hdsim-costs.XXXXXX)}
limit=${TIMEOUT:-120}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
export XDG_DATA_HOME="$work/xdg" HDSIM_LEARNER=bench

head='hdsim 1
lesson bench-costs
title "costs"
'

# ---- claims: 10,000 claims over 100,000 spans, in two shapes ---------------------
#   claims       a loop of 1,000 labelled statements run 100 times (1,001 ops)
#   claimsflat   100,000 statements, 1,000 of them labelled (100,000 ops)
# one claim in ten is blocked(a), the others time(a.lN)
claims() {  # FILE BODY-AWK
	{
		printf '%sscenario a "100,000 host spans"\n' "$head"
		awk "BEGIN { $2 }"
		printf 'end\n'
		awk 'BEGIN { for (i = 0; i < 10000; i++)
			if (i % 10 == 9) printf "claim \"c%d\" blocked(a) < 1s\n", i
			else printf "claim \"c%d\" time(a.l%d) < 1s\n", i, i % 1000 }'
	} >"$1"
}
claims "$work/claims.hds" 'print "  repeat 100"
	for (i = 0; i < 1000; i++) printf "    l%d: host 1us\n", i
	print "  end"'
claims "$work/claimsflat.hds" 'for (i = 0; i < 1000; i++) {
	printf "  l%d: host 1us\n", i
	for (j = 0; j < 99; j++) print "  host 1us" }'

# ---- class: 1,000 learners' databases, each made by hdsim, answers added -------
if [ ! -f "$work/class/learner999.db" ]; then
	mkdir -p "$work/class"
	# an empty file, opened for writing by `hdsim progress --reset`, gets the schema
	: >"$work/class/template.db"
	"$bin" progress --reset --learner nobody --db "$work/class/template.db" >/dev/null
	python3 - "$work/class" <<'EOF'
import shutil, sqlite3, sys
d = sys.argv[1]
for i in range(1000):
    db = "%s/learner%03d.db" % (d, i)
    shutil.copy(d + "/template.db", db)
    q = sqlite3.connect(db)
    q.execute("INSERT INTO learners (name) VALUES (?)", ("learner%03d" % i,))
    lid = q.execute("SELECT id FROM learners WHERE name = ?", ("learner%03d" % i,)).fetchone()[0]
    rows = []
    for les in range(20):
        for qu in range(5):
            rows.append((lid, "lesson-%02d" % les, "q%d" % qu, "a", (i + les + qu) % 2,
                         1 + (i + qu) % 5, 10.0 + qu, qu % 3, "h100-sxm", "0.1.0",
                         "2026-11-24T10:%02d:%02dZ" % (les, qu)))
    q.executemany("INSERT INTO progress (learner_id, lesson, question, answer, correct,"
                  " confidence, seconds, hints, profile, version, created)"
                  " VALUES (?,?,?,?,?,?,?,?,?,?,?)", rows)
    q.commit()
    q.close()
EOF
	rm -f "$work/class/template.db"
fi

# ---- collectives ---------------------------------------------------------------
coll() {  # NAME RANKS SIZE OP
	printf '%sscenario s "%s of %s on %s ranks"\n  ranks %s\n  buffer d device %s\n' \
		"$head" "$4" "$3" "$2" "$2" "$3" >"$work/$1.hds"
	printf '  stream t nonblocking\n  c: %s d on t\n  sync t\nend\n' "$4" >>"$work/$1.hds"
}
coll bcast 8 4096TiB broadcast
coll ar4096 4096 1GiB allreduce
coll ar16384 16384 1GiB allreduce
sed 's/^coll\.chunk = .*/coll.chunk = 1 B/' "$here/../profiles/h100-sxm.hdp" >"$work/chunk1.hdp"

# ---- timing --------------------------------------------------------------------
cases=${CASES:-claims claimsflat class bcast chunk1 ar4096 ar16384}
one() {  # CASE WHAT ARGS...
	name=$1 what=$2
	shift 2
	case " $cases " in *" $name "*) ;; *) return 0 ;; esac
	/usr/bin/time -v -o "$work/$name.time" timeout "$limit" "$bin" "$@" \
		>"$work/$name.out" 2>"$work/$name.err"
	rc=$?
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/$name.time" |
		awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }')
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/$name.time" |
		awk '{ printf "%.1f", $1 / 1024 }')
	[ "$rc" = 124 ] && what="$what (killed after $limit s)"
	printf '%-10s %4s %8s %8s  %s\n' "$name" "$rc" "$wall" "$rss" "$what"
}

printf '%-10s %4s %8s %8s  %s\n' case exit wall_s rss_MiB what
one claims "10,000 claims, 100,000 spans of 1,001 ops" run "$work/claims.hds" \
	--profile h100-sxm --json
one claimsflat "10,000 claims, 100,000 spans of 100,000 ops" run "$work/claimsflat.hds" \
	--profile h100-sxm --json
one class "export --class, 1,000 learners" export --class "$work"/class/learner*.db \
	-o "$work/class-out"
one bcast "broadcast of 4096 TiB, 8 ranks" run "$work/bcast.hds" --profile h100-sxm --json
one chunk1 "lesson 17, coll.chunk = 1 B" run 17 --profile "$work/chunk1.hdp" --json
one ar4096 "1 GiB all-reduce, 4096 ranks" run "$work/ar4096.hds" --profile h100-sxm --json
one ar16384 "1 GiB all-reduce, 16384 ranks" run "$work/ar16384.hds" --profile h100-sxm --json
