#!/usr/bin/env bash
# Call 15l: EDD's junction rows assembled and solved in one kernel, a block per 32 cells,
# the rows in shared memory where they fit 96 KiB (call 15i: assembly 119 us, then the
# solve 131 us reading them back, deep set). gpu-branch's GPU tests; whole-run outputs
# byte-identical to ea1928f's binary (EDD uncut, cut=8, cut=32, the fold); branch_bench at
# 256, 2,560 and 25,600 cells (multi, deep): gpu-cell, fold, EDD, EDD cut 32; Nsight
# Compute on EDD's kernels, deep 25,600. Pack: arbolito, gpu_tests (gzipped),
# branch_bench and arbolito-ea1928f (stripped, gzipped). Log: $OUT/fused15l.log.
set -u
source bench/gpu_call_env.sh fused15l
edd_check 3
echo "== done in $SECONDS s" >> $L
cat $L
