#!/usr/bin/env bash
# Call 12f: (1) Nsight Compute on the current resident kernel (9baebe7's engine: batched
# loads, split=cost, branch-free chunks): one 100-step epoch kernel of busyring 8,192
# cells, time, FP64 instruction counts (the FLOP rate), occupancy, warp stalls, memory;
# (2) the chain bench with the branches in device memory and in the other block's shared
# memory of a two-block cluster (distributed shared memory: issue 13's alternative for
# cells too large for one block). Files: $OUT/ncu.txt. Log: $OUT/ncu12.log.
set -u
source bench/gpu_call_env.sh ncu12
ncu --version | tail -1 >> $L
sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": 8192/" examples/busyring.json > /tmp/b.json
M=sm__sass_thread_inst_executed_op_dfma_pred_on.sum,sm__sass_thread_inst_executed_op_dmul_pred_on.sum
M=$M,sm__sass_thread_inst_executed_op_dadd_pred_on.sum,gpu__time_duration.sum,dram__bytes.sum
timeout 240 ncu --clock-control none -k regex:resident_kernel --launch-skip 1 --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
  --section MemoryWorkloadAnalysis --metrics $M \
  $P/arbolito run /tmp/b.json --tfinal 8 --solver gpu-fine:step=resident --spikes-only -o /tmp/o.h5 > $O/ncu.txt 2>&1
echo "ncu rc $? in $SECONDS s" >> $L
grep -E "Duration|dfma|dmul|dadd|dram__bytes|Warp Cycles Per Issued|Avg. Active Threads|Stall|Achieved Occupancy|Theoretical Occupancy|Block Limit|Registers Per|L2 Hit|L1/TEX Hit|DRAM Throughput|Compute \(SM\)" $O/ncu.txt | head -40 >> $L
for r in 16 64; do timeout 60 $P/chain_latency_bench --rows $r >> $L 2>&1; done
echo "== done in $SECONDS s" >> $L
cat $L
