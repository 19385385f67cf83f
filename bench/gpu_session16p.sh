#!/usr/bin/env bash
# Call 16p: is the FP64 reciprocal's MUFU the tiles' bottleneck? branch_bench_rcp32 is
# branch_bench built from an experimental copy (not committed) whose gpu::reciprocal in
# hines_gpu_branch.cu starts from the float reciprocal (rcp.approx.f32, then the same two
# Newton steps in double) instead of rcp.approx.f64; side by side with this session's
# branch_bench, 25,600 cells, EDD untiled and by tiles. Pack: arbolito, branch_bench,
# branch_bench_rcp32 (gzipped). Log: $OUT/s16p.log.
set -u
source bench/gpu_call_env.sh s16p
for b in branch_bench branch_bench_rcp32; do
  echo "== $b" >> $L
  timeout 100 $P/$b --cells 25600 --sets 2,multi,deep --reps 7 --variants edd-cut32,edd-c32-t1024,edd-c32-t2048 2>&1 |
    grep -E "^[a-z0-9]+ +25600 cells" | awk '{print $1, $6, $11, $12}' >> $L
done
echo "== done in $SECONDS s" >> $L
cat $L
