#!/usr/bin/env bash
# Call 17g: the tiles' shared memory cut (ends 4 doubles a slot, the top coefficients read
# from the rows; the junctions' D, R, P over their own rows; tile_assemble, the same
# arithmetic): 7 → 5 blocks an SM of 3 cells at tiles of 1,536 CVs become 15 cells an SM.
# The gpu-branch GPU tests, memcheck and racecheck on the tiles' tests; whole-run outputs
# (busyring 256 × 50 ms) byte-identical to the previous binary's (arbolito-prev, commit
# 4c659bf, call 17f's) with EDD by tiles; branch_bench, previous build (no
# tiles of 1,536) and this one alternating, 25,600 and 2,560 cells. Log: $OUT/s17g.log.
set -u
source bench/gpu_call_env.sh s17g
run_tests 'GpuBranch*' 'Tiles'
sanitize 'GpuBranch.EddTiles*' 'GpuBranch.EddTiles*'
same_outputs arbolito arbolito-prev gpu-branch:coupling=edd:tile=1024 gpu-branch:coupling=edd:tile=1536:prefetch=20:skew=4000
for r in 1 2; do
  for b in branch_bench_prev branch_bench; do
    V=gpu-cell,edd-c24-t1024,edd-c32-t512,edd-c32-t1024; [ $b = branch_bench ] && V=$V,edd-c32-t1536,edd-c32-t2048
    echo "== $b" >> $L
    timeout 100 $P/$b --cells 25600,2560 --sets multi,2,deep,real --reps 9 --variants $V 2>&1 |
      grep -E "^[a-z0-9]+ +[0-9]+ cells" | awk '{printf "%s %s %s %s\n", $1, $2, $6, $11}' | paste -sd' ' | sed 's/ \(multi\|2\|deep\|real\) \(25600\|2560\) gpu-cell/\n\1 \2 gpu-cell/g' >> $L
  done
done
echo "== done in $SECONDS s" >> $L
cat $L
