#!/usr/bin/env bash
# Call 17b: whether EDD by tiles loses to the first wave's blocks moving in step (all copy,
# then all compute, memory idle): an experimental build (branch_bench_stagger) whose first
# wave of blocks (the blocks an SM holds × SMs) starts skewed, block b sleeping
# (b / SMs) × T / (blocks an SM) ns, T = ARBOLITO_TILE_STAGGER_NS; branch_bench at 25,600
# multi, 2 and deep cells for T = 0 … 24,000 ns; then the unchanged build at 25,600,
# 51,200 and 102,400 cells (ns per CV against size). Log: $OUT/s17b.log.
set -u
source bench/gpu_call_env.sh s17b
V=gpu-cell,edd-c32-t1024,edd-c32-t512
for T in 0 4000 8000 12000 16000 24000; do
  echo "== stagger $T ns" >> $L
  ARBOLITO_TILE_STAGGER_NS=$T timeout 100 $P/branch_bench_stagger --cells 25600 --sets multi,2,deep --reps 9 --variants $V 2>&1 |
    grep -E "^[a-z0-9]+ +[0-9]+ cells" | awk '{printf "%-6s %6s %-14s %8s\n", $1, $2, $6, $11}' >> $L
done
echo "== sizes" >> $L
timeout 200 $P/branch_bench --cells 25600,51200,102400 --sets multi,2 --reps 7 --variants gpu-cell,edd-c32-t1024 2>&1 |
  grep -E "^[a-z0-9]+ +[0-9]+ cells" | awk '{printf "%-6s %6s %-14s %8s\n", $1, $2, $6, $11}' >> $L
echo "== done in $SECONDS s" >> $L
cat $L
