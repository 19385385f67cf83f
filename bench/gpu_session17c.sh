#!/usr/bin/env bash
# Call 17c: EDD by tiles with each block prefetching into L2 (one bulk prefetch per array,
# Hopper's cp.async.bulk.prefetch.L2) the rows of the tile D blocks ahead, D a quarter to two
# waves (ARBOLITO_TILE_PREFETCH = quarter waves, 0 = none), after its own copies have
# landed; with and without the first wave's skew of call 17b (ARBOLITO_TILE_STAGGER_NS).
# Experimental build branch_bench_pf. 25,600 cells (multi, 2, deep, real), 2,560 and
# 102,400 (multi). Log: $OUT/s17c.log.
set -u
source bench/gpu_call_env.sh s17c
V=gpu-cell,edd-c32-t1024,edd-c32-t512
for T in 0 8000; do
  for F in 0 1 2 4 8; do
    echo "== stagger $T ns, prefetch $F quarter waves" >> $L
    ARBOLITO_TILE_STAGGER_NS=$T ARBOLITO_TILE_PREFETCH=$F timeout 100 $P/branch_bench_pf --cells 25600 --sets multi,2,deep,real \
      --reps 9 --variants $V 2>&1 |
      grep -E "^[a-z0-9]+ +[0-9]+ cells" | awk '{printf "%-6s %6s %-14s %8s %s\n", $1, $2, $6, $11, $15}' >> $L
  done
done
for F in 0 4; do
  echo "== prefetch $F, 2,560 and 102,400" >> $L
  ARBOLITO_TILE_PREFETCH=$F timeout 150 $P/branch_bench_pf --cells 2560,102400 --sets multi --reps 7 --variants $V 2>&1 |
    grep -E "^[a-z0-9]+ +[0-9]+ cells" | awk '{printf "%-6s %6s %-14s %8s %s\n", $1, $2, $6, $11, $15}' >> $L
done
echo "== done in $SECONDS s" >> $L
cat $L
