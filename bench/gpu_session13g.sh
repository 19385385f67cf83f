#!/usr/bin/env bash
# Call 13g: on the closing binary (a05ca17, call 13f's): every GPU test, then Nsight
# Compute on the resident kernel as call 12f (one 100-step epoch kernel of busyring 8,192
# cells: time, FP64 instruction counts for the FLOP rate, occupancy, warp stalls,
# memory). Pack as 13f. Files: $OUT/ncu.txt, $OUT/tests.log. Log: $OUT/ncu13.log.
set -u
source bench/gpu_call_env.sh ncu13
run_tests '' 'max \|dv\| [0-9.e-]+ mV' >/dev/null
ncu --version | tail -1 >> $L
sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": 8192/" examples/busyring.json > /tmp/b.json
M=sm__sass_thread_inst_executed_op_dfma_pred_on.sum,sm__sass_thread_inst_executed_op_dmul_pred_on.sum
M=$M,sm__sass_thread_inst_executed_op_dadd_pred_on.sum,gpu__time_duration.sum,dram__bytes.sum
timeout 110 ncu --clock-control none -k regex:resident_kernel --launch-skip 1 --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
  --section MemoryWorkloadAnalysis --metrics $M \
  $P/arbolito run /tmp/b.json --tfinal 8 --solver gpu-fine:step=resident --spikes-only -o /tmp/o.h5 > $O/ncu.txt 2>&1
echo "ncu rc $? in $SECONDS s" >> $L
grep -E "Duration|dfma|dmul|dadd|dram__bytes|Warp Cycles Per Issued|Avg. Active Threads|Stall|Achieved Occupancy|Theoretical Occupancy|Block Limit|Registers Per|L2 Hit|L1/TEX Hit|DRAM Throughput|Compute \(SM\)" $O/ncu.txt | head -40 >> $L
echo "== done in $SECONDS s" >> $L
cat $L
