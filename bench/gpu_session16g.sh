#!/usr/bin/env bash
# Call 16g: where EDD by tiles spends its time. branch_bench_exp is branch_bench built from
# an experimental copy of solvers/gpu/hines_gpu_branch.cu (not committed) whose tiles'
# kernel skips the phases set in $EDD_TILE_SKIP (1 eliminate, 2 assemble, 4 junctions,
# 8 complete, 16 the rows' copy in, 32 the copy out; the answers are then wrong, the
# times are what is left). Multi-morphology and real cells, 25,600, tiles of 1,024 CVs cut
# every 32. Pack: branch_bench_exp (gzipped). Log: $OUT/s16g.log.
set -u
source bench/gpu_call_env.sh s16g
for set in multi real; do
  for skip in 0 1 2 4 8 15 16 32 48 63; do
    echo -n "$set skip $skip: " >> $L
    EDD_TILE_SKIP=$skip timeout 60 $P/branch_bench_exp --cells 25600 --sets $set --reps 7 --variants edd-c32-t1024 2>&1 |
      grep -E "cells" | head -1 | awk '{print $9, $10, $11, $12}' >> $L
  done
done
echo "== done in $SECONDS s" >> $L
cat $L
