#!/usr/bin/env bash
# Call 15c, the closing table on ea1928f (call 15b's event queue and one-piece epochs,
# and the run's log line giving ns per CV-step to 3 digits): final_table
# (bench/gpu_call_env.sh), the resident step at 1,024 / 8,192 / 32,768 cells, streaming
# gpu-fine and gpu-cell, busyring 200 ms, with Arbor 0.12's GPU busyring beside. Pack:
# GPU_PACK_BINS=arbolito bash bench/gpu_pack.sh build-gpu; carry .gpu_deps and .arbor-gpu.
# Log: $OUT/final15c.log.
set -u
source bench/gpu_call_env.sh final15c
final_table
echo "== done in $SECONDS s" >> $L
cat $L
