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
run_tests 'GpuBranch*'
same_outputs arbolito arbolito-ea1928f gpu-branch:coupling=edd gpu-branch:coupling=edd:cut=8 gpu-branch:coupling=edd:cut=32 gpu-branch:coupling=fold
t0=$SECONDS
timeout 200 $P/branch_bench --cells 256,2560,25600 --sets multi,deep --reps 7 --variants gpu-cell,fold,edd,edd-cut32 \
  --tsv $O/branch.tsv > $O/branch.out 2>&1
echo "branch_bench rc $? in $((SECONDS - t0)) s" >> $L
grep -E "cells .* CVs" $O/branch.out >> $L
timeout 120 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum \
  -k regex:'edd_' --launch-count 4 $P/branch_bench --cells 25600 --sets deep --variants edd --reps 1 > $O/ncu.txt 2>&1
echo "ncu rc $?" >> $L
grep -E "edd_|duration|bytes|sectors" $O/ncu.txt | sed -E 's/\(int, .*\) \(/(/' >> $L
echo "== done in $SECONDS s" >> $L
cat $L
