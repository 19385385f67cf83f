#!/usr/bin/env bash
# busyring's set-up at scale (issue 14): the run's `set-up`, the whole process's wall time
# and its peak resident memory, for two arbolito binaries side by side, interleaved
# (old, new, old, new, ...) so that both meet the same load. Needs only the binaries and
# python3 (getrusage of each child: no /usr/bin/time or HDF5 tools on the GPU host).
# Usage: bench/setup_scale.sh OLD_BIN NEW_BIN [CELLS=32768] [THREADS=16] [REPS=2]
#   e.g. on the H100 host (16 cores): bash bench/setup_scale.sh .gpu_deps/prebuilt/arbolito-old .gpu_deps/prebuilt/arbolito 32768 16 2
# Runs `arbolito run busyring<CELLS>.json --tfinal 0.1 --spikes-only --solver omp
# --threads THREADS` (OMP_NUM_THREADS=THREADS); output in $TMPDIR (default /tmp).
set -euo pipefail
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
