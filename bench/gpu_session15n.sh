#!/usr/bin/env bash
# Call 15n: as 15m, the rows staged by four warps (128 threads, one solving warp)
# (one contiguous range; where they fit 96 KiB; assembly kept a separate kernel; call 15i:
# the solve waited on L2, 131 us on the deep set). gpu-branch's GPU tests; whole-run outputs
# byte-identical to ea1928f's binary (EDD uncut, cut=8, cut=32, the fold); branch_bench at
# 256, 2,560 and 25,600 cells (multi, deep): gpu-cell, fold, EDD, EDD cut 32; Nsight
# Compute on EDD's kernels, deep 25,600. Pack: arbolito, gpu_tests (gzipped),
# branch_bench and arbolito-ea1928f (stripped, gzipped). Log: $OUT/staged15n.log.
set -u
source bench/gpu_call_env.sh staged15n
edd_check 4
echo "== done in $SECONDS s" >> $L
cat $L
