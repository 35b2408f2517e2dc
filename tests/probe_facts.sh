#!/bin/sh
# probe_facts.sh - what lent H200s measured, held against what the built-in
# h200-sxm predicts, each range over every process that ran it with
# `hdsim --real`, 2026-11-28.  A prediction must fall inside the measured
# range widened by half each way, or by the factor a fact names.
# - Managed memory: bench/probe/umsize.hds and umloop.hds on three machines
#   (bench/results/2026-11-28-managed-h200/run28 to run32); the model before
#   them put a 4 KiB prefetch at 296 us (measured 19-27) and 40 small copies
#   into managed memory at 1.34 ms (0.31-0.35).
# - Syncs after a kernel: bench/probe/syncafter.hds on two machines
#   (bench/results/2026-11-28-heldout8-h200/run37, run39); the model before
#   api.sync_kernel put 500 syncs after a kernel at 259 us (722-947).
# - Fresh pageable pages: bench/probe/touch.hds (run42); without host.touch
#   4 rounds of a 942 MB malloc and a 29.4 MB copy into it came to 12 ms
#   (80.6-81.5).
# - A prefetch beside a faulting kernel: bench/gen/heldout10/single/002.hds,
#   two processes (run42); the model before put it at 122 ms (39.6-51.7).
# - Event records: bench/probe/apictx.hds on two machines, three processes
#   (bench/results/2026-11-28-heldout11-h200/run43, run45); the model
#   before gpu.event_record and api.event_notiming put 200 timing records
#   at 262 us (326-385) and 200 notiming ones at 262 us too (43-77).
# - A reduce and a memory kernel on one buffer, two streams:
#   bench/gen/heldout14/single/002.hds, two processes
#   (bench/results/2026-11-28-heldout14-h200/run51); the model that let any
#   two kernels share a buffer's read put it at 68.9 ms (181.0-181.0).
# - Kernels side by side: bench/probe/coreside.hds, two processes
#   (bench/results/2026-11-28-heldout18-h200/run58); the model that gave
#   every kernel without a grid all the SMs put two one-block 3 ms spin
#   kernels on two streams at 6.01 ms (3.03-3.03) and a spin kernel beside
#   a full grid of compute at 5.89 ms (3.04-3.05).
# - Prefetches that move nothing: bench/probe/pfres.hds (run58); without
#   um.prefetch_stay 40 prefetches to the host of pages on the host came to
#   105 us (224-237).
# - cudaMemcpy's stream: bench/probe/ptcopy.hds (run58): behind a 3 ms
#   kernel on a blocking stream, a copy on the legacy default stream waits
#   (4.04 ms in all), on the per-thread one it does not (3.02); held within
#   10 %, which the other stream's wait (1 ms) would break.
# - Idle device syncs: bench/probe/first.hds sync10 in twelve processes on
#   five machines (bench/results/2026-11-28-apicost-h200/run63, run64,
#   run68; 2026-11-29-heldout22-h200/run71, run72): ten took 7.68-8.86 us
#   in nine of them and 4.27-5.09 us in the other three (the call runs at
#   one of two levels by process); held within 10 % of the nine, which the
#   model before api.sync_device (4.95 us, an idle stream sync's cost)
#   breaks.
# - Round trips through managed memory, measured on lent H100s with each
#   repeat on managed memory of its own and held against h100-sxm
#   (bench/results/2026-12-07-heldout30-h100): a copy out of 8190 B and a
#   kernel on it, 8, 32 and 128 rounds, 2.11-2.57, 7.27-9.01 and 9.89-10.7
#   ms; 32 rounds of a copy into it, 8.17-8.62 ms; with 600 us of
#   host work between rounds, 22.4-24.8 ms (bench/probe/umthrash.hds,
#   runs 84 and 88, three processes on two machines); 100 rounds of a
#   memory kernel on 169 KB and a 9 B copy out, alone and beside a second
#   managed buffer, 8.85-9.88 and 9.23-9.83 ms, umkcopy's kmem_copy 8.58-9.51
#   ms (umthrash2.hds, run87); 50 rounds of a 19 B copy into it 8.79 ms,
#   out of it 9.39, a 4 B read instead 1.12 (umkcopy.hds, run88).  Held
#   within 25 %, which the model before the thrashing rules breaks (out_32
#   at 0.69 ms: the pages stayed open to the copies from the first round).
#   umkcopy's facts before (runs 75, on H200s, 1.02-1.79 ms) were the
#   driver's pinned state a repeat inherited from the ones before it.
# - A managed buffer reallocated beside a live one: bench/probe/umrealloc.hds,
#   two processes on one machine, 2026-11-29 (run77): 16 rounds of a 623 KB
#   cudaMallocManaged, touched, and its cudaFree beside a live 26 KB managed
#   buffer took 405-425 us, alone 5.98-7.07 ms; heldout25 004's loop of the
#   same beside a kernel and two copies 850-1130 us.  The model before the
#   managed heap put both beside-rounds at 5.9 and 6.3 ms (beside held
#   within a factor 2: the model's first allocation pays in full).
# - Staged copies of 1 MiB out of 4 MiB of managed memory, and one
#   host-to-host: bench/probe/umpath.hds, two processes on one machine,
#   2026-11-29 (bench/results/2026-11-29-heldout27-h200/run80): 50 to the
#   device took 5.12-5.27 ms with the pages on the device, 4.72-4.89 ms on
#   the host, 50 into pinned memory 3.91-4.38 ms; held within 30 %, which
#   the model that copied managed memory at the cold rate (9.21, 9.04 and
#   7.99 ms) breaks.
# - A prefetch to the device after a copy into managed memory or a
#   host-to-host copy out of it: bench/probe/umround.hds, two processes on
#   one machine, 2026-11-29 (run81): 90 rounds of a prefetch of 169 KB and
#   a 10 B copy into it took 6.60-6.98 ms, with a host-to-host copy out
#   of it instead 7.95-8.46 ms, with both and a fill kernel 9.76-11.3 ms;
#   held within 30 %, which the model whose prefetch moved nothing back
#   (1.48, 2.14 and 3.40 ms with h200-sxm) breaks.
# - READs in turn with the CPU's copies out of managed memory, and
#   prefetches behind a kernel (h100-sxm): bench/probe/umtiny.hds and
#   umflip.hds on three lent H100s, 2026-12-07, six and four processes
#   (bench/results/2026-12-07-heldout33-h100, runs 92-94): 9 rounds of 5
#   READs of 9 B and a 9 B copy out of 26 B took 3.36-4.20 ms, 20 rounds of
#   one READ and the copy 6.28-8.05 ms, 51 rounds of a fill kernel and a
#   prefetch of 94 B on the device 1.25-1.49 ms, 5 such rounds 184-260 us;
#   with a kernel in place of the copy 4 rounds 148-183 us.  Held within
#   25 %, which the model without read_trip and um.prefetch_defer (1.56, 1.32
#   and 0.44 ms, 96 us) breaks.  The driver's staged copies beside READs
#   do not flip the pages on lent H200s: heldout26 001 took 727-794 us
#   (runs 76-78, four processes), heldout17 017 9.15-9.82 ms (run56, two),
#   where a trip each READ put them at 1.89 and 14.1 ms.
# - Small pinned allocations, prefetches beside allocations, prefetch round
#   trips (h100-sxm): bench/probe/mhloop.hds and umpfmix.hds on a lent
#   H100, 2026-12-07, two processes (bench/results/2026-12-07-heldout34-h100,
#   run95): 13 pairs of a 2430 B cudaMallocHost and cudaFreeHost took 17.2
#   ms in one process and 10.0 in the next, with a kernel and a copy between
#   them 18.0 and 10.4; 600 prefetches of 1270 B to the host in rounds
#   between cudaMalloc and cudaFree 2.28-3.77 ms; 15 round trips of 257 MB
#   beside 035's malloc and free 480-489 ms, one written out 42.5-57.9 ms;
#   56 memory kernels on 9 B of managed memory, each synced, 620-699 us.
#   Held as the model meets them now, so that a change that breaks them
#   fails.
#
# Run by `make check` with $HDSIM and $HDSIM_SRCDIR set; exits 77 (skipped)
# when they are not, or without python3.
# shellcheck disable=SC2015  # "test && ok || fail" is safe: ok never fails
set -u

if [ -z "${HDSIM:-}" ] || [ -z "${HDSIM_SRCDIR:-}" ] || [ ! -x "$HDSIM" ]; then
	echo "probe_facts.sh: HDSIM and HDSIM_SRCDIR are not set: skipped"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "probe_facts.sh: no python3: skipped"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hdsim-probe.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

. "$(dirname "$0")/check-lib.sh"

# facts FILE "scenario min_us max_us [factor]"...: FILE under bench/, its
# scenarios' measured ranges, widened by factor each way (default 1.5);
# checks each
# (predicted with $profile: the built-in profile of the GPU that measured them)
profile=h200-sxm
facts() {
	lesson=$1
	shift
	if ! "$HDSIM" run "$HDSIM_SRCDIR/bench/$lesson" --json --profile "$profile" >"$tmp/run.json" 2>"$tmp/err"; then
		fail "hdsim run bench/$lesson failed: $(head -3 "$tmp/err")"
		return
	fi
	printf '%s\n' "$@" >"$tmp/facts"
	python3 - "$tmp/run.json" "$tmp/facts" >"$tmp/out" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
got = {s["scenario"]: s["makespan_ps"] / 1e6 for s in run["scenarios"]}
for line in open(sys.argv[2]):
    f = line.split()
    name, lo, hi = f[0], float(f[1]), float(f[2])
    k = float(f[3]) if len(f) > 3 else 1.5
    p = got.get(name)
    ok = p is not None and lo / k <= p <= hi * k
    print("%s %s predicted %s us, measured %g-%g us" %
          ("ok" if ok else "FAIL", name, "none" if p is None else "%.1f" % p, lo, hi))
PY
	while read -r verdict rest; do
		[ "$verdict" = ok ] && ok || fail "$lesson: $rest"
	done <"$tmp/out"
}

facts probe/umsize.hds "pf_4KiB 18.6 26.9" "dev_4KiB 27.9 38.1" "hostfault_4KiB 48.6 64.3" \
	"read_4KiB 45.9 57.7" "pf_2MiB 96.0 125.0" "pf_32MiB 696 791" \
	"hostfault_32MiB 747 904" "read_32MiB 5320 8050"
facts probe/umloop.hds "d2m_loop 310 348" "p_d2m_loop 530 691" "read_host 188 286" \
	"read_host_16M 3030 4200" "pf_only_small 20.2 25.9"
facts probe/syncafter.hds "k_sync 722 947" "k_rec_sync 161 313" "k_evsync 695 927" \
	"rounds_k8 385 491" "rounds_kr8 266 381"
facts probe/touch.hds "fresh942 80550 81540" "fresh64 196000 205500" "touched64 21200 23000"
facts gen/heldout10/single/002.hds "main 39560 51700"
facts probe/apictx.hds "rec_nb_200 326 385" "rec_leg_200 337 380" "rec_nt_200 43.3 77.4"
facts gen/heldout14/single/002.hds "main 180990 181040"
facts probe/coreside.hds "spin2 3030 3030" "spin_full 3040 3050" "comp_small 2890 2890" \
	"comp_mem 2900 2900" "comp2 5750 5750" "mem2 553 556" "comp_half2 3030 3040"
facts probe/pfres.hds "pf4k 241 269" "pf4k_busy 2320 2500" "pf64k 328 454" "pfhost 224 237"
facts probe/ptcopy.hds "legacy 4040 4040 1.1" "per_thread 3020 3020 1.1" \
	"per_thread_read 3020 3020 1.1"
facts probe/first.hds "sync10 7.68 8.86 1.1"
facts probe/umpath.hds "mdev_d_1m 5120 5270 1.3" "mhost_d_1m 4720 4890 1.3" \
	"mdev_p_1m 3910 4380 1.3"
facts probe/umround.hds "pf_d2m 6600 6980 1.3" "pf_h2h 7950 8460 1.3" "noalloc 9760 11300 1.3"
# the driver's staged copies beside READs flip nothing (run56, runs 76-78)
facts gen/heldout26/single/001.hds "main 727 794"
facts gen/heldout17/single/017.hds "main 9150 9820 1.25"
facts probe/umrealloc.hds "beside_623k 405 425 2" "alone_623k 5980 7070" "h25_004_loop 850 1130"

profile=h100-sxm
facts probe/umthrash.hds "out_8 2110 2570 1.25" "out_32 7270 9010 1.25" \
	"out_128 9890 10700 1.25" "in_32 8170 8620 1.25" "gap_32 22400 24800 1.25"
facts probe/umthrash2.hds "kcs_100 8850 9880 1.25" "kcs_m2_100 9230 9830 1.25" \
	"kmem_50 8580 9510 1.25"
facts probe/umkcopy.hds "kmem_copyin 8790 8790 1.25" "kmem_copy 9390 9390 1.25" \
	"kmem_read 1120 1120 1.25"
facts probe/umtiny.hds "rdcp 3360 4200 1.25" "rd1cp 6280 8050 1.25" "fpf51 1250 1490 1.25"
facts probe/umflip.hds "rk 148 183 1.25" "fpfb 184 241 1.25" "fpfn 203 260 1.25"
facts probe/mhloop.hds "mh13 10000 17200 1.25" "mh13kc 10400 18000 1.25"
facts probe/umpfmix.hds "pfh600af 2280 3770" "pfh25f 97.7 165" "kms56 620 699 1.25" \
	"rt257w 42500 57900 1.25" "rt257g 480000 489000 1.25"
# run96 (a lent H100, 2026-12-07, two processes): a CPU copy into managed
# memory just prefetched to the host (pftouch), 6 B copies into managed
# memory after a memory kernel on it, on a device buffer, or none (kmcopy),
# and heldout33 012's loop ops one at a time (loopdec)
facts probe/pftouch.hds "rt64wt 24500 24800 1.25" "rt64x5 98800 98900 1.25"
facts probe/kmcopy.hds "kmcw56 7880 8030 1.25" "c56 421 504 1.25" "kmcg56 7470 7820 1.25" \
	"kmcd56 1020 1190 1.25"
facts probe/loopdec.hds "l56a 447 491 1.25" "l56b 354 405 1.25" "l56d 561 652 1.25"

finish probe_facts.sh
