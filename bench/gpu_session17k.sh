#!/usr/bin/env bash
# Call 17k: the final binary (quotients rounded once, tiles of 1,536 by default): every
# GPU test, with the whole-run deviations of every gpu-branch variant from the CPU;
# memcheck on GpuBranch.*, racecheck on the tiles' tests; then the study (branch_study,
# 256 to 25,600 cells) and 256,000 cells of the mono (2 levels) and multi sets for
# bench/branch_bench_h100.tsv and the summary. Pack: arbolito, gpu_tests, branch_bench
# (gzipped). Log: $OUT/s17k.log.
set -u
source bench/gpu_call_env.sh s17k
run_tests '' 'info .*(ring|mixed sizes) gpu-branch'
sanitize 'GpuBranch.*' 'GpuBranch.EddTiles*'
branch_study 300
t0=$SECONDS
timeout 200 $P/branch_bench --cells 256000 --sets 2,multi --reps 5 --tsv $O/big.tsv \
  --variants gpu-cell,fold,edd-cut32,edd-c32-t1536,edd-c32-t1536-plain > $O/big.out 2>&1
echo "256,000 cells rc $? in $((SECONDS - t0)) s" >> $L
grep -E "cells" $O/big.out >> $L
echo "== done in $SECONDS s" >> $L
cat $L
