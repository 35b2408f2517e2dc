#!/bin/sh
# hostile.sh - lessons written to break hdsim get a clear error (exit 2, the
# file, line and column, what limit was crossed) in bounded time and memory;
# every limit in doc/lesson-format.md's table is tried just past it, and most
# just at it (accepted), 500 000 labels among them.  Also: binary junk, NUL
# bytes, invalid UTF-8, a 10 MB line, 10 000 nested blocks, /dev/zero, 10^7
# op executions, a scenario drawing more than 10^7 spans, and a directory of
# 3000 lessons linted with few file descriptors.
#
# Each command runs under `timeout` and, except in sanitizer builds (whose
# shadow memory needs a huge address space), under `ulimit -v`.
# Run by `make check` with $HDSIM set; skipped (77) without it.
set -u
if [ -z "${HDSIM:-}" ] || [ ! -x "$HDSIM" ]; then
	echo "hostile.sh: HDSIM is not set: skipped"
	exit 77
fi
srcdir=${HDSIM_SRCDIR:-$(dirname "$0")/..}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hdsim-hostile.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
vlimit="ulimit -v 1500000;"     # 1.5 GB of address space
if ldd "$HDSIM" 2>/dev/null | grep -q 'libasan\|libubsan'; then
	vlimit=
fi
. "$(dirname "$0")/check-lib.sh"

# expect STATUS FRAGMENT ARGS...: hdsim ARGS exits STATUS within 60 s with
# FRAGMENT (when not empty) in what it wrote to stderr.
expect() {
	want=$1 frag=$2
	shift 2
	n=$((n + 1))
	sh -c "$vlimit exec timeout 60 \"\$@\"" sh "$HDSIM" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 124 ]; then
		fail "hdsim $*: still running after 60 s"
	elif [ "$rc" != "$want" ]; then
		fail "hdsim $*: exit $rc, expected $want"
		head -c 2000 "$tmp/err" | sed 's/^/    /'
	elif [ -n "$frag" ] && ! grep -qF -- "$frag" "$tmp/err"; then
		fail "hdsim $*: stderr lacks '$frag':"
		head -c 2000 "$tmp/err" | sed 's/^/    /'
	fi
}

head='hdsim 1
lesson hostile
title "Hostile"'
# lesson NAME BODY: a lesson whose one scenario holds BODY.
lesson() {
	printf '%s\nscenario a\n%s\nend\n' "$head" "$2" >"$tmp/$1.hds"
}
rep() {
	awk -v s="$1" -v n="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", s }'
}

# ---- the limits table, past each limit and at it -------------------------
lesson line-4096 "  host 1us
# $(rep x 4094)"
expect 0 "" lint "$tmp/line-4096.hds"
lesson line-4097 "  host 1us
# $(rep x 4095)"
expect 2 "line-4097.hds:6:1: error: line is 4097 bytes long; the limit is 4096 bytes" \
	lint "$tmp/line-4097.hds"
{ printf '%s\nscenario a\n  host 1us\nend\n' "$head"
  awk 'BEGIN { for (i = 0; i < 600000; i++) print "# padding, padding, padding" }'; } \
	>"$tmp/big.hds"
expect 2 "big.hds: error: file is more than 16777216 bytes long; the limit is 16777216" \
	lint "$tmp/big.hds"
expect 2 "/dev/zero: error: is not a regular file" lint /dev/zero
lesson name-64 "  buffer $(rep b 64) device 1MiB"
expect 0 "" lint "$tmp/name-64.hds"
lesson name-65 "  buffer $(rep b 65) device 1MiB"
expect 2 "name-65.hds:5:10: error: name is longer than 64 characters" lint "$tmp/name-65.hds"
lesson nest-16 "$(rep 'repeat 2
' 15)
  host 1us
$(rep 'end
' 15)"
expect 0 "" lint "$tmp/nest-16.hds"
lesson nest-10000 "$(rep 'repeat 2
' 10000)
  host 1us
$(rep 'end
' 10000)"
expect 2 "nest-10000.hds:20:1: error: blocks nest more than 16 deep" lint "$tmp/nest-10000.hds"
lesson expr-32 "  host $(rep '(' 32)1us$(rep ')' 32)"
expect 0 "" lint "$tmp/expr-32.hds"
lesson expr-33 "  host $(rep '(' 33)1us$(rep ')' 33)"
expect 2 "expr-33.hds:5:40: error: expression is nested more than 32 deep" \
	lint "$tmp/expr-33.hds"
lesson expr-deep "  host $(rep '-' 4000)1us"
expect 2 "error: expression is nested more than 32 deep" lint "$tmp/expr-deep.hds"
lesson size-max "  buffer d device 4194304TiB
  kernel fill d"
expect 0 "" lint "$tmp/size-max.hds"
lesson size-over "  buffer d device 4194304TiB + 1KiB"
expect 2 "size-over.hds:5:19: error: size '4194304TiB + 1KiB' is too large: the limit is 2^62" \
	lint "$tmp/size-over.hds"
lesson size-overflow "  buffer d device 99999999999999999999999999999999GiB"
expect 2 "error: size '99999999999999999999999999999999GiB' is too large" \
	lint "$tmp/size-overflow.hds"
lesson size-inf "  buffer d device 1e300B * 1e300"
expect 2 "size-inf.hds:5:26: error: the value is too large" lint "$tmp/size-inf.hds"
lesson size-neg "  buffer d device -1e300B"
expect 2 "error: a size cannot be negative: '-1e300B' is -1e+300 B" lint "$tmp/size-neg.hds"
lesson div0 "  host 0us / 0"
expect 2 "div0.hds:5:12: error: division by zero" lint "$tmp/div0.hds"
lesson repeat-max "  repeat 1e9
  end"
expect 0 "" lint "$tmp/repeat-max.hds"
lesson repeat-over "  repeat 1e9 + 1
    host 1us
  end"
expect 2 "repeat-over.hds:5:10: error: the repeat count must be from 1 to 1000000000" \
	lint "$tmp/repeat-over.hds"
# the repeat itself is one execution
lesson execs-max "  repeat 1e8 - 1
    host 1us
  end"
expect 0 "" lint "$tmp/execs-max.hds"
lesson execs-over "  repeat 1e8
    host 1us
  end"
expect 2 "execs-over.hds:4:1: error: scenario a runs 100000001 op executions per rank; the limit is 10^8" \
	lint "$tmp/execs-over.hds"
# a graph's nodes: 10^5 at each launch, each launch counting them all
lesson graph-max "  graph g
    repeat 100000
      kernel spin 1us
    end
  end
  repeat 999
    launch g
  end"
expect 0 "" lint "$tmp/graph-max.hds"
lesson graph-over "  graph g
    repeat 100001
      kernel spin 1us
    end
  end
  launch g"
expect 2 "graph-over.hds:5:3: error: graph g runs 100001 nodes at each launch (loops multiplied out); a graph holds 1 to 100000" \
	lint "$tmp/graph-over.hds"
lesson graph-launches-over "  graph g
    repeat 100000
      kernel spin 1us
    end
  end
  repeat 1000
    launch g
  end"
expect 2 "graph-launches-over.hds:4:1: error: scenario a runs 100001002 op executions per rank; the limit is 10^8" \
	lint "$tmp/graph-launches-over.hds"
{ printf '%s\nscenario a\n' "$head"; rep '  host 1us
' 1000001; printf 'end\n'; } >"$tmp/ops-over.hds"
expect 2 "ops-over.hds:1000005:3: error: scenario a lowers to more than 1000000 ops" \
	lint "$tmp/ops-over.hds"
# a loop that reads its index is built iteration by iteration: 5 x 10^6
# iterations of one op each (the one that differs at i = 0 aside) is in
# bounds, 2 x 10^7 is past the 10^7 ops of such loops
lesson unroll-max "  repeat 5e6 as i
    if i == 0
      host 1us
    end
  end"
expect 0 "" lint "$tmp/unroll-max.hds"
lesson unroll-over "  repeat 2e7 as i
    if i == 0
      host 1us
    end
  end"
expect 2 "unroll-over.hds:5:3: error: this loop reads its index 'i', so scenario a builds it iteration by iteration, and the loops built so come to more than 10000000 ops" \
	lint "$tmp/unroll-over.hds"
# an else-if chain counts one block per if (here the scenario, the loop and
# the first if take three of the 16); conditions as long as a line
{ printf '%s\nscenario a\n  repeat 4 as i\n    if i == 0\n' "$head"
  for k in $(seq 1 13); do printf '    else if i == %d\n' "$k"; done
  printf '    end\n  end\nend\n'; } >"$tmp/elif-13.hds"
expect 0 "" lint "$tmp/elif-13.hds"
{ printf '%s\nscenario a\n  repeat 4 as i\n    if i == 0\n' "$head"
  for k in $(seq 1 14); do printf '    else if i == %d\n' "$k"; done
  printf '    end\n  end\nend\n'; } >"$tmp/elif-14.hds"
expect 2 "elif-14.hds:20:10: error: blocks nest more than 16 deep" lint "$tmp/elif-14.hds"
lesson cond-long "  repeat 4 as i
    if i == 0$(rep ' && i != 1' 400)
      host 1us
    end
  end"
expect 0 "" lint "$tmp/cond-long.hds"
lesson cond-deep "  repeat 4 as i
    if $(rep '!' 4000)(i == 0)
    end
  end"
expect 2 "error: expression is nested more than 32 deep" lint "$tmp/cond-deep.hds"
# the rank limit as doc/lesson-format.md's table gives it
ranks=$(sed -n 's/^| ranks | \([0-9]*\) |$/\1/p' "$srcdir/doc/lesson-format.md")
[ -n "$ranks" ] || { fail "no ranks row in doc/lesson-format.md's limits table"; ranks=1024; }
lesson ranks-max "  ranks $ranks
  host 1us"
expect 0 "" lint "$tmp/ranks-max.hds"
lesson ranks-over "  ranks $((ranks + 1))
  host 1us"
expect 2 "ranks-over.hds:5:9: error: the number of ranks must be from 1 to $ranks" \
	lint "$tmp/ranks-over.hds"
# the claim limit as the table gives it: at it, every claim is evaluated
# in one run (each scenario instantiated once, spans read through an index)
claims=$(sed -n 's/^| claims in one lesson | \([0-9]*\) |$/\1/p' "$srcdir/doc/lesson-format.md")
[ -n "$claims" ] || { fail "no claims row in doc/lesson-format.md's limits table"; claims=1000; }
{ printf '%s\nscenario a\n  repeat 1000\n    h: host 1us\n  end\nend\n' "$head"
  rep 'claim "c" time(a.h) < 1s
' "$claims"; } >"$tmp/claims-max.hds"
expect 0 "" run "$tmp/claims-max.hds"
[ "$(grep -c '^  \[holds\] c$' "$tmp/out")" = "$claims" ] ||
	fail "run of $claims claims: not all held"
{ cat "$tmp/claims-max.hds"; printf 'claim "c" time(a.h) < 1s\n'; } >"$tmp/claims-over.hds"
expect 2 "error: more than $claims claims; the limit is $claims" lint "$tmp/claims-over.hds"
lesson prio-max "  stream s priority -100
  kernel spin 1us on s"
expect 0 "" lint "$tmp/prio-max.hds"
lesson prio-over "  stream s priority 101
  kernel spin 1us on s"
expect 2 "prio-over.hds:5:21: error: expected a whole number from -100 to 100" \
	lint "$tmp/prio-over.hds"
lesson grid-max "  kernel spin 1us grid 2147483647"
expect 0 "" lint "$tmp/grid-max.hds"
lesson grid-over "  kernel spin 1us grid 2147483648"
expect 2 "grid-over.hds:5:24: error: the grid must be from 1 to 2147483647, but '2147483648' is 2147483648" \
	lint "$tmp/grid-over.hds"
lesson grid-huge "  kernel spin 1us grid 1e300"
expect 2 "but '1e300' is 1e+300" lint "$tmp/grid-huge.hds"
lesson time-max "  host 1000000s"
expect 0 "" lint "$tmp/time-max.hds"
lesson time-over "  host 1000001s"
expect 2 "time-over.hds:5:8: error: time '1000001s' is too long: the limit is 10^6 s" \
	lint "$tmp/time-over.hds"
lesson work-max "  kernel compute 1e24FLOP"
expect 0 "" lint "$tmp/work-max.hds"
lesson work-over "  kernel compute 2e24FLOP"
expect 2 "work-over.hds:5:18: error: work must be from 0 to 10^24 FLOP" lint "$tmp/work-over.hds"
# host threads: 64 beside the main one, a queue of 4096 items; run at the
# limit (64 threads, each its 64 items through the queue, taken by the main
# thread), refused past it
lesson threads-64 "  queue q 4096
  workers 32
    repeat 64
      host 1us
      put q
    end
  end
  thread t
    put q
  end
  workers 31
    put q
  end
  repeat 2080
    get q
  end"
expect 0 "" run "$tmp/threads-64.hds"
grep -q 'Worker 62' "$tmp/out" || fail "64 host threads: no row 'Worker 62'"
lesson threads-65 "  workers 64
    host 1us
  end
  thread t
  end"
expect 2 "threads-65.hds:8:3: error: scenario a starts more than 64 host threads beside the main one (64 before this block, 1 in it); the limit is 64" \
	lint "$tmp/threads-65.hds"
lesson queue-4097 "  queue q 4097"
expect 2 "queue-4097.hds:5:11: error: a queue's depth must be from 1 to 4096, but '4097' is 4097" \
	lint "$tmp/queue-4097.hds"

# ---- how many names: 1000 of each kind, then one more ------------------------
names() {   # names FILE KIND N: a lesson declaring N names of KIND
	awk -v n="$3" -v k="$2" 'BEGIN {
		printf "hdsim 1\nlesson many\ntitle \"Many\"\n"
		if (k == "knob") for (i = 0; i < n; i++) printf "knob k%d 1us 1ns .. 1s \"k\"\n", i
		if (k == "question") for (i = 0; i < n; i++)
			printf "question q%d choice \"?\"\n  option a \"A\"\n  option b \"B\"\n" \
			    "  answer a\n  explain \"A.\"\nend\n", i
		if (k == "scenario") for (i = 1; i < n; i++) printf "scenario s%d\n  host 1us\nend\n", i
		printf "scenario a\n"
		if (k == "buffer") for (i = 0; i < n; i++) printf "  buffer b%d device 1KiB\n", i
		if (k == "event") for (i = 0; i < n; i++) printf "  event e%d\n", i
		if (k == "queue") for (i = 0; i < n; i++) printf "  queue q%d 1\n", i
		if (k == "label") for (i = 0; i < n; i++) printf "  l%d: host 1us\n", i
		printf "  host 1us\nend\n"
	}' >"$1"
}
for k in buffer event queue label knob scenario question; do
	names "$tmp/$k-1000.hds" $k 1000
	expect 0 "" lint "$tmp/$k-1000.hds"
	names "$tmp/$k-1001.hds" $k 1001
	expect 2 "the limit is 1000" lint "$tmp/$k-1001.hds"
done
names "$tmp/label-5e5.hds" label 500000
expect 2 "label-5e5.hds:1005:3: error: scenario a has more than 1000 labels" \
	lint "$tmp/label-5e5.hds"

# ---- running big scenarios: bounded, or refused ---------------------------
lesson ops-1e7 "  repeat 1e7
    host 1us
  end"
expect 0 "" run "$tmp/ops-1e7.hds"
grep -q 'Makespan 10.0 s' "$tmp/out" || fail "run of 10^7 ops: no 'Makespan 10.0 s'"
# 10^5 pageable copies of 1 GiB stage in ~10^8 chunks: refused past 10^7 spans
lesson spans-over "  buffer h pageable 1GiB
  buffer d device 1GiB
  stream s
  repeat 100000
    copy h -> d async on s
  end"
expect 2 "scenario 'a': it draws more than 10000000 spans; the limit is 10^7" run "$tmp/spans-over.hds"

# ---- not text ---------------------------------------------------------------
awk 'BEGIN { srand(11); for (i = 0; i < 65536; i++) printf "%c", int(rand() * 256) }' \
	>"$tmp/junk.hds" 2>/dev/null
expect 2 "junk.hds:1:" lint "$tmp/junk.hds"
printf '%s\nscenario a\n  host 1us\nend\n' "hdsim 1
lesson nul
title \"N$(printf '\001')ul\"" | tr '\001' '\000' >"$tmp/nul.hds"
expect 2 "nul.hds:3:9: error: NUL byte in the text" lint "$tmp/nul.hds"
printf '%s\nscenario a\n  host 1us\nend\n' "hdsim 1
lesson utf
title \"caf$(printf '\303\050')\"" >"$tmp/utf.hds"
expect 2 "utf.hds:3:11: error:" lint "$tmp/utf.hds"
grep -q 'UTF-8' "$tmp/err" || fail "invalid UTF-8: the message does not say UTF-8"
lesson longline "  host 1us
# $(rep x 10000000)"
expect 2 "longline.hds:6:1: error: line is 10000002 bytes long; the limit is 4096 bytes" \
	lint "$tmp/longline.hds"

# ---- a directory of 3000 lessons, 3 of them bad, with 64 descriptors ------
mkdir "$tmp/many"
i=0
while [ "$i" -lt 3000 ]; do
	printf 'hdsim 1\nlesson l%d\ntitle "Lesson %d"\nscenario a\n  host %dus\nend\n' \
		"$i" "$i" $((i + 1)) >"$tmp/many/l$i.hds"
	i=$((i + 1))
done
for b in 17 1234 2999; do
	printf 'hdsim 1\nlesson l%d\ntitle "Lesson"\nscenario a\n  host 1 us\nend\n' "$b" \
		>"$tmp/many/l$b.hds"
done
vlimit="$vlimit ulimit -n 64;"
expect 2 "l1234.hds:5:8: error:" lint "$tmp/many"
for b in 17 2999; do
	grep -qF "l$b.hds:5:8: error:" "$tmp/err" || fail "lint DIR does not report l$b.hds"
done
[ "$(grep -c ': error: ' "$tmp/err")" = 3 ] || fail "lint DIR: not exactly 3 errors:
$(head -n 20 "$tmp/err")"

finish hostile.sh
