#!/usr/bin/env bash
# Call 17p: after the review of the change since 088c291 (the tiles' steps moved to
# edd_sweeps.hpp, the event queue's target bits one member and a pool check): every GPU
# test; memcheck on GpuBranch.* and GpuCellGroup.*, racecheck on the tiles' tests; whole-run
# outputs (busyring 256 × 50 ms) byte-identical to call 17o's binary (arbolito-prev,
# 4e5cffb) with every GPU solver; branch_bench, 17o's build and this one alternating, at
# 25,600 and 2,560 multi cells. Log: $OUT/s17p.log.
set -u
source bench/gpu_call_env.sh s17p
run_tests '' 'info .*mixed sizes gpu-branch coupling=edd:cut=1'
sanitize 'GpuBranch.*:GpuCellGroup.*' 'GpuBranch.EddTiles*'
same_outputs arbolito arbolito-prev gpu-cell gpu-fine gpu-fine:step=resident gpu-branch:coupling=fold \
  gpu-branch:coupling=edd gpu-branch:coupling=edd:tile=1536
for r in 1 2; do
  for b in branch_bench_prev branch_bench; do
    echo "== $b" >> $L
    timeout 60 $P/$b --cells 25600,2560 --sets multi,deep --reps 9 --variants gpu-cell,edd-c32-t1536 2>&1 |
      grep -E "^[a-z0-9]+ +[0-9]+ cells" | awk '{printf "%s %s %s %s\n", $1, $2, $6, $11}' | paste -sd' ' >> $L
  done
done
echo "== done in $SECONDS s" >> $L
cat $L
