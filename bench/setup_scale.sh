#!/usr/bin/env bash
# Set-up at scale, two studies.
#
# bench/setup_scale.sh OLD_BIN NEW_BIN [CELLS=32768] [THREADS=16] [REPS=2]
# busyring's set-up: the run's `set-up`, the whole process's wall time and its peak
# resident memory, for two arbolito binaries side by side, interleaved (old, new, old, new,
# ...) so that both meet the same load. Needs only the binaries and python3 (getrusage of
# each child: no /usr/bin/time or HDF5 tools on the GPU host).
#   e.g. on the H100 host (16 cores): bash bench/setup_scale.sh .gpu_deps/prebuilt/arbolito-old .gpu_deps/prebuilt/arbolito 32768 16 2
#   (bench/gpu_run.py's setup-scale step runs it there)
# Runs `arbolito run busyring<CELLS>.json --tfinal 0.1 --spikes-only --solver omp
# --threads THREADS` (OMP_NUM_THREADS=THREADS); output in $TMPDIR (default /tmp).
#
# bench/setup_scale.sh discretize [--build DIR] [SIZES...]   (default 12500 25000 50000 100000)
# Discretisation time against samples per branch: an unbranched SWC chain of N samples (a
# soma and one dendrite), cut at every sample (policy every_segment), timed through
# `arbolito info` (reading, discretising, the table); median of 3 per size. Linear is the
# expectation: the time per sample should stay flat as N doubles.
#
# bench/setup_scale.sh memory BIN [SIZES] [RANKS]   (defaults "256 512 1024 2048", "1 2")
# Host memory at set-up against the cells a rank holds: busyring (examples/busyring.json,
# Arbor's 1,000 unconnected synapses and 1,000 connections a cell) at each size, run for
# 0.1 ms with the cpu solver, spikes only, on 1 and on 2 ranks (mpirun); each rank's peak
# resident memory from /usr/bin/time. Prints the largest rank's peak, its bytes per CV of
# the rank's share, and between consecutive sizes the bytes each CV more added (the
# slope: what set-up costs per CV beyond the binary's fixed part).
set -euo pipefail
memory() {
  local bin=$1 sizes=${2:-256 512 1024 2048} ranks_list=${3:-1 2} root t n r model prev_kb prev_cv
  root=$(cd "$(dirname "$0")/.." && pwd)
  t=$(mktemp -d); trap "rm -rf '$t'" EXIT
  printf "%-6s %-6s %-10s %-12s %-12s %-12s\n" ranks cells CVs peak_MB B/CV_rank slope_B/CV
  for r in $ranks_list; do
    prev_kb=""; prev_cv=""
    for n in $sizes; do
      model=$t/busyring$n.json
      sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": $n/" "$root/examples/busyring.json" > "$model"
      rm -f "$t"/rss.*
      local run=("$bin" run "$model" --tfinal 0.1 --spikes-only --timings json -o "$t/out.h5")
      # Each rank's own peak: /usr/bin/time around each rank, its file named by the rank.
      local timed=(sh -c '/usr/bin/time -f %M -o "$0.${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}" "$@"' "$t/rss" "${run[@]}")
      if [ "$r" = 1 ]; then "${timed[@]}" > "$t/json" 2> "$t/log"
      else OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 \
             ${MPIRUN:-mpirun --oversubscribe --bind-to none} -np "$r" "${timed[@]}" > "$t/json" 2> "$t/log"; fi
      local cv kb
      cv=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])["n_cv"])' "$t/json")
      kb=$(cat "$t"/rss.* | sort -n | tail -1)
      # The largest rank holds about CVs / ranks (blocks balanced by CV count).
      local share=$((cv / r)) slope="-"
      [ -n "$prev_kb" ] && slope=$(( (kb - prev_kb) * 1024 / ((cv - prev_cv) / r) ))
      printf "%-6s %-6s %-10s %-12s %-12s %-12s\n" "$r" "$n" "$cv" $((kb / 1024)) $((kb * 1024 / share)) "$slope"
      prev_kb=$kb; prev_cv=$cv
    done
  done
}
if [ "${1:-}" = memory ]; then shift; memory "$@"; exit 0; fi
discretize() {
  cd "$(dirname "$0")/.."
  local build=build sizes tmp n r s e ts med
  if [ "${1:-}" = --build ]; then build=$2; shift 2; fi
  sizes=${*:-12500 25000 50000 100000}
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  printf "%-9s %-9s %-12s\n" samples info_s us/sample
  for n in $sizes; do
    python3 - "$n" "$tmp" <<'PY'
import json, sys
n, tmp = int(sys.argv[1]), sys.argv[2]
with open(f"{tmp}/chain.swc", "w") as f:
    f.write("1 1 0 0 0 5 -1\n")
    for i in range(2, n + 1):
        f.write(f"{i} 3 {i}.0 0 0 0.5 {i - 1}\n")
json.dump({"name": "chain", "run": {"dt": 0.025, "tfinal": 1},
           "cells": [{"count": 1, "morphology": {"swc": f"{tmp}/chain.swc"},
                      "discretization": {"policy": "every_segment"},
                      "paint": [{"region": "all", "mechanism": "pas"}]}]}, open(f"{tmp}/chain.json", "w"))
PY
    ts=()
    for r in 1 2 3; do
      s=$(date +%s.%N); $build/app/arbolito info $tmp/chain.json > /dev/null 2>&1; e=$(date +%s.%N)
      ts+=($(echo "$e - $s" | bc -l))
    done
    med=$(printf "%s\n" "${ts[@]}" | sort -g | sed -n 2p)
    printf "%-9s %-9.3f %-12.2f\n" $n $med $(echo "$med * 1000000 / $n" | bc -l)
  done
}
if [ "${1:-}" = discretize ]; then shift; discretize "$@"; exit 0; fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OLD=${1:?old binary}; NEW=${2:?new binary}; CELLS=${3:-32768}; THREADS=${4:-16}; REPS=${5:-2}
T=${TMPDIR:-/tmp}
sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": $CELLS/" "$ROOT/examples/busyring.json" > "$T/busyring$CELLS.json"
echo "busyring $CELLS cells, omp x $THREADS threads, --tfinal 0.1 --spikes-only, $REPS runs each, $(nproc) cores here"
OMP_NUM_THREADS=$THREADS python3 - "$OLD" "$NEW" "$T/busyring$CELLS.json" "$THREADS" "$REPS" "$T" <<'PY'
import os, re, resource, statistics, subprocess, sys, time
old, new, model, threads, reps, tmp = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]
rows = {"old": [], "new": []}
# set-up+run: the old binaries built the spike fan-out inside the run's timing (a 0.1-ms
# run is mostly that), the new ones at set-up: compare set-up+run and whole across them.
print("%-4s %10s %10s %9s %9s" % ("bin", "set-up s", "whole s", "peak GB", "+run s"))
for r in range(reps):
    for name, b in (("old", old), ("new", new)):
        # Each run in its own python child, so that getrusage's peak is this run's alone.
        code = ("import resource,subprocess,sys,time; t=time.time(); "
                "p=subprocess.run(sys.argv[1:], capture_output=True, text=True); w=time.time()-t; "
                "sys.stdout.write(p.stdout+p.stderr); "
                "print('@@ %d %.3f %d' % (p.returncode, w, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))")
        out = subprocess.run([sys.executable, "-c", code, b, "run", model, "--tfinal", "0.1", "--spikes-only",
                              "--solver", "omp", "--threads", threads, "-o", os.path.join(tmp, "setup_scale.h5")],
                             capture_output=True, text=True).stdout
        rc, wall, kb = re.search(r"@@ (-?\d+) ([0-9.]+) (\d+)", out).groups()
        m = re.search(r"set-up ([0-9.]+) s", out)
        setup = float(m.group(1)) if m else float("nan")
        m = re.search(r"run ([0-9.]+) s \(", out)
        both = setup + (float(m.group(1)) if m else float("nan"))
        rows[name].append((setup, float(wall), int(kb) / 1e6, both))
        print("%-4s %10.3f %10.2f %9.2f %9.3f%s" % (name, setup, float(wall), int(kb) / 1e6, both,
                                                 "" if rc == "0" else "  rc " + rc), flush=True)
print("medians:")
for name in ("old", "new"):
    s, w, g, b = (statistics.median(x[i] for x in rows[name]) for i in range(4))
    print("%-4s %10.3f %10.2f %9.2f %9.3f" % (name, s, w, g, b))
o = [statistics.median(x[i] for x in rows["old"]) for i in range(4)]
n = [statistics.median(x[i] for x in rows["new"]) for i in range(4)]
print("new/old: set-up %.2f, whole %.2f, peak %.2f, set-up+run %.2f" % (n[0] / o[0], n[1] / o[1], n[2] / o[2], n[3] / o[3]))
PY
