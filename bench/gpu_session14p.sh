#!/usr/bin/env bash
# Call 14p: Nsight Compute on the closing binary (call 14m's code): ncu_resident
# (bench/gpu_call_env.sh: one 100-step epoch kernel of busyring 8,192 cells: time, FP64
# instruction counts for the FLOP rate, occupancy, warp states, memory) and the stall
# reasons per issued instruction as call 14d measured them. Log: $OUT/ncu14.log.
set -u
source bench/gpu_call_env.sh ncu14
ncu_resident
M='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
M2=smsp__average_warp_latency_per_inst_issued.ratio,gpu__time_duration.sum,smsp__inst_executed.sum
timeout 100 ncu --clock-control none -k regex:resident_kernel --launch-skip 1 --launch-count 1 --metrics "$M,$M2" \
  $P/arbolito run /tmp/b.json --tfinal 8 --solver gpu-fine:step=resident --spikes-only -o /tmp/o.h5 > $O/ncu_stalls.txt 2>&1
echo "stalls rc $? at $SECONDS s" >> $L
grep -E "smsp__|gpu__time" $O/ncu_stalls.txt | awk '$NF+0 > 0.05 || /time|inst/' >> $L
echo "== done in $SECONDS s" >> $L
cat $L
