#!/usr/bin/env bash
# Call 15s: EDD's staged junction rows one slot further on per cell (a warp's 32 threads,
# each in a cell of as many junctions, hit one shared-memory bank at every step: 64
# junctions a cell are 512 B apart). edd_check (gpu-branch's GPU tests, outputs against
# ea1928f's, branch_bench multi and deep, Nsight Compute on EDD's kernels), then
# branch_bench's real and deep sets with EDD's staging caps (the rule of call 15q again).
# Pack: arbolito, gpu_tests (gzipped), branch_bench and arbolito-ea1928f (stripped,
# gzipped). Log: $OUT/banks15s.log.
set -u
source bench/gpu_call_env.sh banks15s
edd_check 4
timeout 120 $P/branch_bench --cells 256,2560,25600 --sets real,deep --reps 7 --variants edd-cut32,edd-js0,edd-js74 \
  --tsv $O/cap.tsv > $O/cap.out 2>&1
grep -E "cells .* CVs" $O/cap.out >> $L
echo "== done in $SECONDS s" >> $L
cat $L
