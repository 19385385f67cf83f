#!/usr/bin/env bash
# Call 16k: the seed's study on the session's binary, for bench/branch_bench_h100.tsv and
# the summary: branch_study (bench/gpu_call_env.sh; every set and variant, EDD's tiles
# among them, 256 to 25,600 cells), then 256,000 cells of the mono (2 levels) and multi
# sets with gpu-cell, the fold, untiled EDD and EDD by tiles. Pack: arbolito, gpu_tests,
# branch_bench (gzipped). Log: $OUT/s16k.log.
set -u
source bench/gpu_call_env.sh s16k
branch_study 300
t0=$SECONDS
timeout 200 $P/branch_bench --cells 256000 --sets 2,multi --reps 5 --tsv $O/big.tsv \
  --variants gpu-cell,fold,edd-cut32,edd-c32-t1024 > $O/big.out 2>&1
echo "256,000 cells rc $? in $((SECONDS - t0)) s" >> $L
grep -E "cells" $O/big.out >> $L
echo "== done in $SECONDS s" >> $L
cat $L
