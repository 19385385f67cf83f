#!/usr/bin/env bash
# Call 12f: (1) Nsight Compute on the current resident kernel (9baebe7's engine: batched
# loads, split=cost, branch-free chunks): one 100-step epoch kernel of busyring 8,192
# cells, time, FP64 instruction counts (the FLOP rate), occupancy, warp stalls, memory;
# (2) the chain bench with the branches in device memory and in the other block's shared
# memory of a two-block cluster (distributed shared memory: issue 13's alternative for
# cells too large for one block). Files: $OUT/ncu.txt. Log: $OUT/ncu12.log.
set -u
source bench/gpu_call_env.sh ncu12
ncu_resident  # timeout 240 s when this call ran, now 110
chain_bench 16 64
echo "== done in $SECONDS s" >> $L
cat $L
