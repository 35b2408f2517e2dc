#!/bin/sh
# store_kill.sh - the database survives writers killed at any moment, and two
# writers at once lose nothing.
#
# A writer inserting runs is killed with SIGKILL at random points, many
# times over; after each kill the database must pass its integrity check and
# hold only whole runs (every span and claim of a run, or none of it).  A
# writer killed beside another costs the other nothing, and two writers
# creating a new database at once both succeed.
set -u
w=${STORE_WRITER:-./tests/store_writer}
[ -x "$w" ] || { echo "no $w: skipped"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
db="$tmp/kill.db"
spans=400
kills=${STORE_KILLS:-30}
fail=0
last=0

i=0
while [ "$i" -lt "$kills" ]; do
	"$w" write "$db" 1000 "$spans" 2> "$tmp/err" &
	pid=$!
	# 0 to 0.12 s: before, during and between transactions.
	delay=$(awk -v s="$i" 'BEGIN { srand(s * 7919 + 17); printf "%.3f", rand() * 0.12 }')
	sleep "$delay"
	kill -9 "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
	if ! n=$("$w" check "$db" "$spans"); then
		echo "FAIL: after kill $i (at ${delay}s) the database is not consistent"
		fail=1
		break
	fi
	if [ "$n" -lt "$last" ]; then
		echo "FAIL: after kill $i the database lost runs ($last -> $n)"
		fail=1
	fi
	last=$n
	i=$((i + 1))
done
echo "$kills kills: database consistent every time, $last whole runs kept"

# Two writers at once: both finish and every run of both is there.
db2="$tmp/two.db"
"$w" write "$db2" 40 "$spans" & a=$!
"$w" write "$db2" 40 "$spans" & b=$!
wait "$a"; ra=$?
wait "$b"; rb=$?
n=$("$w" check "$db2" "$spans") || fail=1
if [ "$ra" != 0 ] || [ "$rb" != 0 ] || [ "$n" != 80 ]; then
	echo "FAIL: two writers: exit $ra and $rb, $n runs stored of 80"
	fail=1
else
	echo "two writers at once: 80 of 80 runs stored"
fi

# Two writers creating one new database at once, again and again: neither
# may take the other's half-made file for a foreign one.
i=0
while [ "$i" -lt 10 ]; do
	rm -f "$tmp/new.db" "$tmp/new.db-wal" "$tmp/new.db-shm"
	"$w" write "$tmp/new.db" 5 "$spans" 2> "$tmp/err" & a=$!
	"$w" write "$tmp/new.db" 5 "$spans" 2>> "$tmp/err" & b=$!
	wait "$a"; ra=$?
	wait "$b"; rb=$?
	n=$("$w" check "$tmp/new.db" "$spans")
	if [ "$ra" != 0 ] || [ "$rb" != 0 ] || [ "$n" != 10 ]; then
		echo "FAIL: two writers creating a database: exit $ra and $rb, $n runs of 10:"
		sed 's/^/    /' "$tmp/err"
		fail=1
		break
	fi
	i=$((i + 1))
done
[ "$fail" = 0 ] && echo "two writers creating one database, 10 times: 10 of 10 runs each time"

# A writer killed while another writes: the survivor stores every run it
# was asked for, the killed one only whole runs, the file stays consistent.
db3="$tmp/mixed.db"
rounds=${STORE_MIXED:-8}
i=0
while [ "$i" -lt "$rounds" ]; do
	"$w" write "$db3" 10 "$spans" survivor 2> "$tmp/err" & a=$!
	"$w" write "$db3" 1000 "$spans" victim 2> /dev/null & b=$!
	delay=$(awk -v s="$i" 'BEGIN { srand(s * 104729 + 3); printf "%.3f", rand() * 0.1 }')
	sleep "$delay"
	kill -9 "$b" 2> /dev/null
	wait "$b" 2> /dev/null
	wait "$a"; ra=$?
	i=$((i + 1))
	if [ "$ra" != 0 ]; then
		echo "FAIL: round $i: the surviving writer failed:"
		sed 's/^/    /' "$tmp/err"
		fail=1
		break
	fi
	if ! n=$("$w" check "$db3" "$spans" survivor); then
		echo "FAIL: round $i: the database is not consistent after a kill beside a writer"
		fail=1
		break
	fi
	if [ "$n" != $((i * 10)) ]; then
		echo "FAIL: round $i: $n survivor runs stored of $((i * 10))"
		fail=1
		break
	fi
done
[ "$fail" = 0 ] && echo "$rounds kills beside a second writer: its $((rounds * 10)) runs all stored"
exit $fail
