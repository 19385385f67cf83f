#!/usr/bin/env bash
# Call 15h: EDD's junction solve by windows of 8 junctions (edd_sweeps::junctions<8>:
# rows loaded together, updates and values inside a window kept in registers; call 15g
# found the one-at-a-time chain 28 % of the deep solve). gpu-branch's GPU tests; whole-run
# outputs byte-identical to ea1928f's binary with EDD (uncut, cut=8, cut=32) and the fold;
# branch_bench at 2,560 and 25,600 cells, multi and deep: gpu-cell, fold, EDD, EDD cut 32.
# Pack: arbolito, gpu_tests (gzipped), branch_bench and arbolito-ea1928f (stripped,
# gzipped). Log: $OUT/junctions15h.log.
set -u
source bench/gpu_call_env.sh junctions15h
run_tests 'GpuBranch*:ThomasBatch*'
same_outputs arbolito arbolito-ea1928f gpu-branch:coupling=edd gpu-branch:coupling=edd:cut=8 gpu-branch:coupling=edd:cut=32 gpu-branch:coupling=fold
t0=$SECONDS
timeout 240 $P/branch_bench --cells 2560,25600 --sets multi,deep --reps 7 --variants gpu-cell,fold,edd,edd-cut32 \
  --tsv $O/branch.tsv > $O/branch.out 2>&1
echo "branch_bench rc $? in $((SECONDS - t0)) s" >> $L
grep -E "cells .* CVs" $O/branch.out >> $L
echo "== done in $SECONDS s" >> $L
cat $L
