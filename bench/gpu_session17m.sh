#!/usr/bin/env bash
# Call 17m: the final binary: every GPU test (with every gpu-branch variant's whole-run
# deviation from the CPU); memcheck on GpuBranch.*, racecheck on the tiles' tests; the
# study (branch_study, 256 to 25,600 cells) and 256,000 cells of the mono (2 levels) and
# multi sets for bench/branch_bench_h100.tsv; busyring 1,024 and 8,192 cells × 200 ms with
# gpu-branch (fold, EDD untiled as auto leaves it there, EDD by tiles of 1,536) and Arbor
# 0.12's GPU busyring beside it. Pack: arbolito, gpu_tests, branch_bench (gzipped); carry
# .arbor-gpu. Log: $OUT/s17m.log.
set -u
source bench/gpu_call_env.sh s17m
run_tests '' 'info .*(ring|mixed sizes) gpu-branch|quotients'
sanitize 'GpuBranch.*' 'GpuBranch.EddTiles*'
branch_study 300
t0=$SECONDS
timeout 200 $P/branch_bench --cells 256000 --sets 2,multi --reps 5 --tsv $O/big.tsv \
  --variants gpu-cell,fold,edd-cut32,edd-c32-t1536,edd-c32-t1536-plain > $O/big.out 2>&1
echo "256,000 cells rc $? in $((SECONDS - t0)) s" >> $L
grep -E "cells" $O/big.out >> $L
t0=$SECONDS
bash bench/busyring_table.sh "1024 8192" \
  "gpu-branch:coupling=fold gpu-branch:coupling=edd gpu-branch:coupling=edd:tile=1536" 200 $O/busy.tsv
echo "busyring in $((SECONDS - t0)) s" >> $L; cat $O/busy.tsv >> $L
t0=$SECONDS
OUT=/tmp/arb RUN_TIMEOUT=120 timeout 150 bash .arbor-gpu/run.sh 1024 8192 > /tmp/arb.log 2>&1
echo "arbor rc $? in $((SECONDS - t0)) s" >> $L
cp /tmp/arb/arbor_busyring_summary.tsv $O/arbor.tsv 2>/dev/null; cat /tmp/arb/arbor_busyring_summary.tsv >> $L 2>/dev/null
echo "== done in $SECONDS s" >> $L
cat $L
