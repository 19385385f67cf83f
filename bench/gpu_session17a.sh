#!/usr/bin/env bash
# Call 17a: EDD by tiles with the junction solve by windows of 1 (the build), 2, 4 and 8
# junctions (experimental builds branch_bench_wN, tile_window = N; the same bits by
# construction, edd_sweeps::junctions): branch_bench side by side, multi, 2, deep and real
# cells at 25,600 and 2,560, cuts 16, 24 and 32, tiles of 512 and 1,024 CVs, and gpu-cell.
# Pack: arbolito, gpu_tests, branch_bench, branch_bench_w2/w4/w8 (gzipped). Log: $OUT/s17a.log.
set -u
source bench/gpu_call_env.sh s17a
V=gpu-cell,edd-c16-t1024,edd-c24-t1024,edd-c32-t1024,edd-c32-t512
for b in branch_bench branch_bench_w2 branch_bench_w4 branch_bench_w8; do
  echo "== $b" >> $L; t0=$SECONDS
  timeout 130 $P/$b --cells 25600,2560 --sets multi,2,deep,real --reps 7 --variants $V 2>&1 |
    grep -E "^[a-z0-9]+ +[0-9]+ cells" | awk '{printf "%-6s %6s %-14s %8s\n", $1, $2, $6, $11}' >> $L
  echo "-- $b in $((SECONDS - t0)) s" >> $L
done
echo "== done in $SECONDS s" >> $L
cat $L
