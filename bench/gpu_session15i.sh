#!/usr/bin/env bash
# Call 15i: Nsight Compute on EDD's four kernels after the junction windows (call 15h),
# deep 25,600 cells: duration, DRAM bytes, and for the junctions kernel its warp stalls.
# Pack: branch_bench stripped, gzipped (with arbolito). Log: $OUT/ncu15i.log.
set -u
source bench/gpu_call_env.sh ncu15i
timeout 150 ncu --section SpeedOfLight --section WarpStateStats --section LaunchStats --section Occupancy \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum \
  -k regex:'edd_' --launch-count 4 $P/branch_bench --cells 25600 --sets deep --variants edd --reps 1 > $O/ncu.txt 2>&1
echo "ncu rc $?" >> $L
grep -E "edd_|Duration|dram__bytes|inst_executed|Warp Cycles Per Issued|Stall|Memory Throughput|Achieved Occupancy|Registers Per" $O/ncu.txt | head -80 >> $L
echo "== done in $SECONDS s" >> $L
cat $L
