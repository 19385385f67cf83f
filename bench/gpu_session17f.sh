#!/usr/bin/env bash
# Call 17f: the tiles' junction solve with the last updated row and value kept in registers
# (tile_junctions: the same arithmetic in the same order): the gpu-branch
# GPU tests, memcheck and racecheck on the tiles' test; whole-run outputs (busyring 256 ×
# 50 ms, recorded) byte-identical to the previous binary's (arbolito-prev, commit dbda436)
# with EDD by tiles; branch_bench, previous build and this one alternating, 25,600 and 2,560
# cells. Log: $OUT/s17f.log.
set -u
source bench/gpu_call_env.sh s17f
run_tests 'GpuBranch*' 'Tiles'
sanitize 'GpuBranch.EddTiles*' 'GpuBranch.EddTilesSameBitsAsUntiled'
same_outputs arbolito arbolito-prev gpu-branch:coupling=edd:tile=1024 gpu-branch:coupling=edd:tile=1024:prefetch=20:skew=4000
V=gpu-cell,edd-c16-t1024,edd-c24-t1024,edd-c32-t512,edd-c32-t1024
for r in 1 2; do
  for b in branch_bench_prev branch_bench; do
    echo "== $b" >> $L
    timeout 100 $P/$b --cells 25600,2560 --sets multi,2,deep,real --reps 9 --variants $V 2>&1 |
      grep -E "^[a-z0-9]+ +[0-9]+ cells" | awk '{printf "%s %s %s %s | ", $1, $2, $6, $11} /edd-c32-t1024/ {print ""}' >> $L
  done
done
echo "== done in $SECONDS s" >> $L
cat $L
