#!/usr/bin/env bash
# Whole busyring runs (issue 4): examples/busyring.json (1,000 connections per cell,
# 200 ms) at several sizes on the GPU (solver gpu-cell), and 1,024 cells on the host's
# cores (solver omp) for comparison; `arbolito run --spikes-only --timings json`. Prints
# ns per CV-step with the per-phase split, and compares the GPU step with the time to move
# the per-CV state once at the measured copy bandwidth (from gpu_step_bench's summary).
#
# Environment: ARBOLITO (binary), ARBOLITO_LIBS (its LD_LIBRARY_PATH prefix),
# BUSYRING_RUNS (GPU runs "cells,tfinal,options ..."; options: gpu-cell's KEY=VALUE[:KEY=VALUE]...
# (docs/solvers.md), e.g. "1024,200,layout=interleaved:timing=off"; empty: the defaults;
# default "1024,200, 8192,200, 32768,200,"; a run without options runs every solver of
# BUSYRING_SOLVERS, default "gpu-cell gpu-fine gpu-branch"), OMP_THREADS (16), OMP_TFINAL (50),
# OMP_CELLS (1024; 0: no omp run), STEP_SUMMARY (gpu_step_bench summary with the copy
# bandwidth and bytes per CV), RUN_TIMEOUT (s per run, 300), LOG (folder for the JSON
# lines and logs).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ARB=${ARBOLITO:-$ROOT/build/app/arbolito}
LOG=${LOG:-$ROOT/build-gpu-check/logs}
RUNS=${BUSYRING_RUNS:-1024,200, 8192,200, 32768,200,}
mkdir -p "$LOG"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
JS=$LOG/busyring_runs.jsonl
: > "$JS"

model() {  # cells -> model file
  sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": $1/" "$ROOT/examples/busyring.json" > "$TMP/busyring_$1.json"
  echo "$TMP/busyring_$1.json"
}

one() {  # label cells tfinal solver args...
  local label=$1 cells=$2 tf=$3; shift 3
  local t0=$(date +%s)
  local line
  line=$(timeout "${RUN_TIMEOUT:-300}" env "LD_LIBRARY_PATH=${ARBOLITO_LIBS:-}:${LD_LIBRARY_PATH:-}" "$ARB" run "$(model "$cells")" --tfinal "$tf" --spikes-only --timings json \
         -o "$TMP/out.h5" "$@" 2>> "$LOG/busyring_runs.log" | tail -1)
  local rc=$?
  echo "[busyring] $label cells=$cells tfinal=$tf rc=$rc wall=$(( $(date +%s) - t0 ))s" | tee -a "$LOG/busyring_runs.log"
  [ $rc = 0 ] && echo "{\"label\": \"$label\", \"cells\": $cells, \"tfinal\": $tf, \"r\": $line}" >> "$JS"
  rm -f "$TMP/out.h5"
}

for r in $RUNS; do
  IFS=, read -r n tf l <<< "$r"
  if [ -z "$l" ]; then
    for s in ${BUSYRING_SOLVERS:-gpu-cell gpu-fine gpu-branch}; do one "$s" "$n" "$tf" --solver "$s"; done
  else one "gpu-cell:$l" "$n" "$tf" --solver "gpu-cell:$l"; fi
done
[ "${OMP_CELLS:-1024}" != 0 ] &&
  one "omp x${OMP_THREADS:-16}" "${OMP_CELLS:-1024}" "${OMP_TFINAL:-50}" --solver omp --threads "${OMP_THREADS:-16}"

python3 - "$JS" "${STEP_SUMMARY:-}" <<'EOF' | tee "$LOG/busyring_table.txt"
import json, re, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
bw, floor = None, {}
if len(sys.argv) > 2 and sys.argv[2]:
    try:
        for l in open(sys.argv[2]):
            m = re.match(r"copy bandwidth .*: ([0-9.]+) GB/s", l)
            if m: bw = float(m.group(1))
            m = re.match(r"(\S+)\s+\d+\s+\d+\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)$", l.strip())
            if m: floor[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    except OSError:
        pass
phases = ["events", "assemble", "currents", "solve", "states", "detect", "sample"]
print("busyring (examples/busyring.json), --spikes-only; ns per CV-step (n_cv real CVs, no padding)")
print("%-30s %6s %5s %9s %7s %8s | %s | %8s %8s" % ("solver", "cells", "ms", "n_cv", "run_s", "ns/CVst",
      " ".join("%8s" % p[:8] for p in phases), "exch_exp", "setup_s"))
for r in runs:
    x = r["r"]; den = x["n_cv"] * x["steps"]
    ph = " ".join("%8.4f" % (1e9 * x.get(p, 0) / den) for p in phases)
    print("%-30s %6d %5g %9d %7.2f %8.4f | %s | %8.2f %8.1f" % (r["label"], r["cells"], r["tfinal"], x["n_cv"], x["run"],
          x["ns_per_cv_step"], ph, x.get("exchange_exposed", 0), x["setup"]))
if bw:
    print("\nfloor: the per-CV state moved once per step (gpu_step_bench's count, %s) at the measured copy "
          "bandwidth %.0f GB/s" % (", ".join("%s %.0f B/CV" % (k, v[0]) for k, v in floor.items()), bw))
    print("%-30s %6s %12s %12s %12s %9s" % ("solver", "cells", "run ns/CVst", "phases ns", "floor ns", "run/floor"))
    for r in runs:
        if not r["label"].startswith("gpu"): continue
        x = r["r"]; den = x["n_cv"] * x["steps"]
        lay = r["label"].split(":", 1)[1] if ":" in r["label"] else "block-interleaved:32"
        lay = lay.split("+")[0]
        if lay not in floor: continue
        fl = floor[lay][0] / bw  # B per CV / (GB/s) = ns per CV
        ph = sum(1e9 * x.get(p, 0) / den for p in phases)
        print("%-30s %6d %12.4f %12.4f %12.4f %9.2f" % (r["label"], r["cells"], x["ns_per_cv_step"], ph, fl,
              x["ns_per_cv_step"] / fl))
EOF
