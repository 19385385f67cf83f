#!/usr/bin/env bash
# Call 17o: after the review (prefetch distance and skew step clamped; the kernels
# unchanged): every GPU test; memcheck on GpuBranch.*, racecheck on the tiles' tests;
# whole-run outputs (busyring 256 × 50 ms) byte-identical to call 17m's binary
# (arbolito-prev, bf92340) with gpu-branch fold, EDD untiled and EDD by tiles; and
# branch_bench at 25,600 and 2,560 multi cells (gpu-cell, auto tiles). Log: $OUT/s17o.log.
set -u
source bench/gpu_call_env.sh s17o
run_tests '' 'info .*(ring|mixed sizes) gpu-branch coupling=edd:cut'
sanitize 'GpuBranch.*' 'GpuBranch.EddTiles*'
same_outputs arbolito arbolito-prev gpu-branch:coupling=fold gpu-branch:coupling=edd gpu-branch:coupling=edd:tile=1536
timeout 100 $P/branch_bench --cells 25600,2560 --sets multi --reps 9 --variants gpu-cell,edd-c32-t1536 2>&1 |
  grep -E "^[a-z0-9]+ +[0-9]+ cells" | awk '{printf "%s %s %s %s ms %s ns/CV\n", $1, $2, $6, $9, $11}' >> $L
echo "== done in $SECONDS s" >> $L
cat $L
