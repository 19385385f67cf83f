#!/usr/bin/env bash
# Call 16r: EDD by tiles with the junction systems by levels (all the junctions of a level
# of a tile's cells at once, a barrier between levels; the same arithmetic as one thread a
# cell): the gpu-branch GPU tests, memcheck and racecheck on the tiles' test; whole-run
# outputs (busyring 256 × 50 ms, recorded) byte-identical to the previous binary's
# (arbolito-prev) with EDD by tiles and untiled; branch_bench against the previous build
# (branch_bench_prev), 25,600, 2,560 and 256 cells. Pack: arbolito, arbolito-prev,
# gpu_tests, branch_bench, branch_bench_prev (gzipped). Log: $OUT/s16r.log.
set -u
source bench/gpu_call_env.sh s16r
run_tests 'GpuBranch*' 'tile'
sanitize 'GpuBranch.EddTilesSameBitsAsUntiled' 'GpuBranch.EddTilesSameBitsAsUntiled'
same_outputs arbolito arbolito-prev gpu-branch:coupling=edd:tile=1024 gpu-branch:coupling=edd:tile=0
for b in branch_bench_prev branch_bench; do
  echo "== $b" >> $L
  timeout 150 $P/$b --cells 25600,2560,256 --reps 7 --variants gpu-cell,edd-cut32,edd-c32-t512,edd-c32-t1024,edd-c32-t2048 2>&1 |
    grep -E "^[a-z0-9]+ +[0-9]+ cells" | awk '{printf "%s %s %s %s | ", $1, $2, $6, $11} /edd-c32-t2048/ {print ""}' >> $L
done
echo "== done in $SECONDS s" >> $L
cat $L
