#!/bin/sh
# bench/fidelity-run.sh - one device call: calibrate with this build, then
# hdsim --real over the generated sets, one process per file, every result
# packed under $OUT/f.tar.gz.  JOBS: set:pass:mode, mode cal (--profile the
# calibrated profile just written: the stored profile alone) or refit (plain
# --real, host figures measured again in each process).  HDSIM: the binary
# (built as bench/README.md says); LIMIT: seconds before no new file starts.
# gpu-state.txt holds the GPU's clocks, temperature, power and throttle
# reasons before calibrate, before each pass and at the end (nvidia-smi
# -q): a card that slows under load shows there, not only as a miss.
# PROBES: lesson files run after calibrate, before JOBS, each in PASSES
# processes (default 2) with the calibrated profile, into probe/NAME.pK.txt.
# repeats.csv: every measured repeat's makespan, out of the database.
#   JOBS="heldout:1:cal tuning:1:cal heldout:2:cal" sh bench/fidelity-run.sh
set -u
bin=${HDSIM:-$PWD/_gpu/hdsim}
out=$OUT/f
mkdir -p "$out"
export XDG_DATA_HOME="${WORK:-$PWD/_gpu}/xdgF" NCCL_NVLS_ENABLE=0
rm -rf "$XDG_DATA_HOME"
start=$(date +%s)
# gpu_state WHEN: the card's state now, appended to gpu-state.txt
gpu_state() {
  { echo "== $1, $(date -u +%T)"
    nvidia-smi -q -d CLOCK,PERFORMANCE,TEMPERATURE,POWER 2>&1; } >> "$out/gpu-state.txt"
}
gpu_state "before calibrate"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; lscpu | grep -E "Model name|^CPU\(s\)|L3"; date -u; } > "$out/machine.txt" 2>&1
( time "$bin" calibrate ) > "$out/calibrate.txt" 2>&1
cp "$XDG_DATA_HOME"/hdsim/profiles/*.hdp "$out/calibrated.hdp"
for f in ${PROBES:-}; do
  mkdir -p "$out/probe"
  k=1
  while [ "$k" -le "${PASSES:-2}" ]; do
    timeout 120 "$bin" --real "$f" --profile "$out/calibrated.hdp" --db "$out/hdsim.db" > "$out/probe/$(basename "$f" .hds).p$k.txt" 2>&1
    echo "probe $f p$k rc=$? $(date -u +%T)" >> "$out/rc.txt"
    k=$((k + 1))
  done
done
for job in $JOBS; do
  set=${job%%:*}; rest=${job#*:}; pass=${rest%%:*}; mode=${rest#*:}
  mkdir -p "$out/$set"
  gpu_state "before $job"
  for f in "bench/gen/$set"/single/*.hds; do
    [ $(( $(date +%s) - start )) -gt "${LIMIT:-540}" ] && { echo "stopped at $job $f (time)" >> "$out/stopped.txt"; break 2; }
    n=$(basename "$f" .hds)
    # --real runs a scenario about 11 times (a warm-up, 5 bare repeats, 5
    # timed op by op): one the calibrated profile puts past 3 s cannot end
    # inside the 40 s a file may take, so it is skipped, not timed out
    ps=$("$bin" run "$f" --json --profile "$out/calibrated.hdp" 2>/dev/null |
      sed -n 's/.*"makespan_ps":\([0-9]*\).*/\1/p' | head -1)
    if [ "${ps:-0}" -gt 3000000000000 ]; then
      echo "$job $n skipped: predicted $ps ps, past 3 s" >> "$out/rc.txt"
      continue
    fi
    if [ "$mode" = cal ]; then
      timeout 40 "$bin" --real "$f" --profile "$out/calibrated.hdp" --db "$out/hdsim.db" > "$out/$set/$n.p$pass.txt" 2>&1
    else
      timeout 40 "$bin" --real "$f" --db "$out/hdsim.db" > "$out/$set/$n.p$pass.txt" 2>&1
    fi
    echo "$job $n rc=$? $(date -u +%T)" >> "$out/rc.txt"
  done
done
gpu_state "at the end"
# every measured repeat's makespan (and without per-op events, bare), kept
# where the database is not: lesson,scenario,run,repeat,makespan_ps,bare_ps
python3 - "$out/hdsim.db" > "$out/repeats.csv" <<'PY' || echo "repeats.csv: rc=$?" >> "$out/rc.txt"
import csv, sqlite3, sys
w = csv.writer(sys.stdout)
w.writerow(["lesson", "scenario", "run", "repeat", "makespan_ps", "bare_ps"])
for row in sqlite3.connect(sys.argv[1]).execute(
        "SELECT r.lesson, r.scenario, r.id, p.repeat, p.makespan_ps, p.bare_ps FROM runs r "
        "JOIN run_repeats p ON p.run_id = r.id WHERE r.source = 'measured' ORDER BY r.id, p.repeat"):
    w.writerow(row)
PY
rm -f "$out/hdsim.db"
cd "$OUT" && tar czf f.tar.gz f && rm -rf f
