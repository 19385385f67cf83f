#!/usr/bin/env bash
# Call 15j: issue 12's multi-morphology study again on this session's code (EDD's junction
# windows, call 15h), for bench/branch_bench_h100.tsv and branch_summary_h100.txt (which
# test_solver_auto reads): every set at 256, 2,560 and 25,600 cells with every variant,
# then multi and "2" at 256,000 cells with gpu-cell, the fold and EDD cut 32 (as in the
# fifth session). Pack: branch_bench stripped, gzipped (with arbolito). Log:
# $OUT/study15j.log; $OUT/study.tsv, $OUT/study_summary.txt, $OUT/big.tsv.
set -u
source bench/gpu_call_env.sh study15j
t0=$SECONDS
timeout 330 $P/branch_bench --cells 256,2560,25600 --reps 7 --budget-s 300 --tsv $O/study.tsv \
  --summary $O/study_summary.txt > $O/study.out 2>&1
echo "study rc $? in $((SECONDS - t0)) s" >> $L
cat $O/study_summary.txt >> $L
t0=$SECONDS
timeout 200 $P/branch_bench --cells 256000 --sets multi,2 --reps 5 --variants gpu-cell,fold,edd-cut32 \
  --tsv $O/big.tsv > $O/big.out 2>&1
echo "256,000 cells rc $? in $((SECONDS - t0)) s" >> $L
grep -E "cells .* CVs" $O/big.out >> $L
echo "== done in $SECONDS s" >> $L
cat $L
