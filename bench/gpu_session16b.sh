#!/usr/bin/env bash
# Call 16b: EDD by tiles, why it is slow: the gpu-branch GPU tests, memcheck and racecheck
# on the tiles' test, then Nsight Compute on one tiled solve (edd_tiles, cut 32, tiles of
# 1,024 CVs) of 25,600 multi-morphology cells and of 25,600 real cells: time, occupancy,
# warp stalls, memory. Pack: arbolito, gpu_tests, branch_bench (gzipped). Log: $OUT/s16b.log.
set -u
source bench/gpu_call_env.sh s16b
run_tests 'GpuBranch*' 'tile'
sanitize 'GpuBranch.EddTilesSameBitsAsUntiled' 'GpuBranch.EddTilesSameBitsAsUntiled'
ncu --version | tail -1 >> $L
for set in multi real; do
  timeout 100 ncu --clock-control none -k regex:edd_tiles --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section SchedulerStats --section SourceCounters \
    $P/branch_bench --cells 25600 --sets $set --reps 3 --variants edd-c32-t1024 > $O/ncu_$set.txt 2>&1
  echo "== ncu $set rc $? at $SECONDS s" >> $L
  grep -E "Duration|Warp Cycles Per Issued|Avg. Active Threads|Stall|Achieved Occupancy|Theoretical Occupancy|Block Limit|Registers Per|Shared Memory Config|Dynamic Shared|Block Size|Grid Size|DRAM Throughput|Memory Throughput|Compute \(SM\)|Issue Slots|Eligible|Active Warps|No Eligible" $O/ncu_$set.txt | head -50 >> $L
done
echo "== done in $SECONDS s" >> $L
cat $L
