#!/usr/bin/env bash
# Call 15k: EDD's junction rows interleaved by 32 cells (junction_rows: a warp's loads of
# a window contiguous; call 15i found the junctions kernel waiting on L2). gpu-branch's GPU
# tests; whole-run outputs byte-identical to ea1928f's binary (EDD uncut, cut=8, cut=32,
# the fold); branch_bench at 256 (deep), 2,560 and 25,600 cells (multi, deep): gpu-cell,
# fold, EDD, EDD cut 32; Nsight Compute on EDD's kernels, deep 25,600. Pack: arbolito,
# gpu_tests (gzipped), branch_bench and arbolito-ea1928f (stripped, gzipped). Log:
# $OUT/rows15k.log.
set -u
source bench/gpu_call_env.sh rows15k
edd_check 4
echo "== done in $SECONDS s" >> $L
cat $L
