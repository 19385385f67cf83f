#!/usr/bin/env bash
# Call 16q: the sweeps' loads without branches (branch_sweeps::load_up/load_down read
# position 0 or the last row past a slot's ends and drop the value, where they branched
# around the load): the gpu-branch GPU tests; whole-run outputs (busyring 256 × 50 ms,
# recorded) byte-identical to the previous binary's (arbolito-prev) with the fold, EDD
# untiled and by tiles; branch_bench against the previous build (branch_bench_prev) at
# 25,600 and 2,560 cells. Pack: arbolito, arbolito-prev, gpu_tests, branch_bench,
# branch_bench_prev (gzipped). Log: $OUT/s16q.log.
set -u
source bench/gpu_call_env.sh s16q
run_tests 'GpuBranch*:GpuFine*:GpuCell*'
same_outputs arbolito arbolito-prev gpu-branch:coupling=fold gpu-branch:coupling=edd:tile=0 gpu-branch:coupling=edd:tile=1024
for b in branch_bench_prev branch_bench branch_bench_prev branch_bench; do
  echo "== $b" >> $L
  timeout 100 $P/$b --cells 25600,2560 --sets 2,multi,deep --reps 7 --variants fold,edd-cut32,edd-c32-t1024,edd-c32-t2048 2>&1 |
    grep -E "^[a-z0-9]+ +[0-9]+ cells" | awk '{print $1, $2, $6, $11}' | paste -sd' ' | sed 's/ns\/CV/|/g' >> $L
done
echo "== done in $SECONDS s" >> $L
cat $L
