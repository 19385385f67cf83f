#!/usr/bin/env bash
# Call 15f: issue 12's study at 2,560 and 25,600 cells (multi, deep) with gpu-fine staged
# in shared memory (branch_bench's gpu-fine-s24/48/96: blocks of one, three and six
# 512-CV cells, one DRAM pass) beside gpu-cell, default gpu-fine (device memory, 8,192-CV
# blocks) and the fold: how near 2x gpu-cell a one-pass block-level solve of the same
# batches comes. Then streaming gpu-fine on busyring 8,192 cells × 50 ms with
# memory=shared (one and two cells a block) against its default. Pack: arbolito;
# branch_bench stripped, gzipped. Log: $OUT/staged15f.log.
set -u
source bench/gpu_call_env.sh staged15f
t0=$SECONDS
timeout 240 $P/branch_bench --cells 2560,25600 --sets multi,deep --reps 7 \
  --variants gpu-cell,gpu-fine,gpu-fine-s24,gpu-fine-s48,gpu-fine-s96,fold --tsv $O/branch.tsv > $O/branch.out 2>&1
echo "branch_bench rc $? in $((SECONDS - t0)) s" >> $L
grep -E "cells .* CVs" $O/branch.out >> $L
bash bench/busyring_table.sh "8192" "gpu-fine gpu-fine:memory=shared:block=2048 gpu-fine:memory=shared:block=3600" 50 $O/busy.tsv
cat $O/busy.tsv >> $L
echo "== done in $SECONDS s" >> $L
cat $L
