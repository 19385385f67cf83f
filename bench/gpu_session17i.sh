#!/usr/bin/env bash
# Call 17i: the session's closing figures: 256,000 cells of the mono (2 levels) and multi
# sets with gpu-cell, the fold, untiled EDD and EDD by tiles (auto: 1,536 CVs; with and
# without the L2 prefetch and skew), into the study's TSV; then busyring 1,024 and 8,192
# cells × 200 ms with EDD untiled (auto on the busyring) and by tiles of 1,536 and 1,024,
# and Arbor 0.12's GPU busyring (.arbor-gpu) at both sizes beside it. Pack: arbolito,
# branch_bench (gzipped). Log: $OUT/s17i.log.
set -u
source bench/gpu_call_env.sh s17i
t0=$SECONDS
timeout 220 $P/branch_bench --cells 256000 --sets 2,multi --reps 5 --tsv $O/big.tsv \
  --variants gpu-cell,fold,edd-cut32,edd-c32-t1536,edd-c32-t1536-plain > $O/big.out 2>&1
echo "256,000 cells rc $? in $((SECONDS - t0)) s" >> $L
grep -E "cells" $O/big.out >> $L
t0=$SECONDS
bash bench/busyring_table.sh "1024 8192" \
  "gpu-branch:coupling=edd gpu-branch:coupling=edd:tile=1536 gpu-branch:coupling=edd:tile=1024" 200 $O/busy.tsv
echo "busyring in $((SECONDS - t0)) s" >> $L; cat $O/busy.tsv >> $L
t0=$SECONDS
OUT=/tmp/arb RUN_TIMEOUT=120 timeout 150 bash .arbor-gpu/run.sh 1024 8192 > /tmp/arb.log 2>&1
echo "arbor rc $? in $((SECONDS - t0)) s" >> $L
cp /tmp/arb/arbor_busyring_summary.tsv $O/arbor.tsv 2>/dev/null; cat /tmp/arb/arbor_busyring_summary.tsv >> $L 2>/dev/null
echo "== done in $SECONDS s" >> $L
cat $L
