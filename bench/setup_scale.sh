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
set -euo pipefail
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
