#!/usr/bin/env bash
# Call 16a: EDD by tiles (one launch per solve, each tile's rows in shared memory). The
# gpu-branch GPU tests (the new GpuBranch.EddTilesSameBitsAsUntiled among them), memcheck
# and racecheck on it; whole runs (busyring 256 cells × 50 ms, recorded) compared between
# the CPU, untiled EDD and tiled EDD; branch_bench at 256, 2,560 and 25,600 cells with the
# tiled variants beside gpu-cell, the fold and untiled EDD. Pack: arbolito, gpu_tests,
# branch_bench (gzipped). Log: $OUT/s16a.log.
set -u
source bench/gpu_call_env.sh s16a
run_tests 'GpuBranch*' 'tile'
sanitize 'GpuBranch.EddTilesSameBitsAsUntiled' 'GpuBranch.EddTilesSameBitsAsUntiled'
sed -E -e 's/"num-cells": *[0-9]+/"num-cells": 256/' -e 's/"record": *false/"record": true/' \
  bench/models/busyring64.json > /tmp/rec.json
timeout 120 $P/arbolito compare /tmp/rec.json --tfinal 50 -o /tmp/cmp \
  --solvers cpu,gpu-branch:coupling=edd,gpu-branch:coupling=edd:tile=1024,gpu-branch:coupling=edd:tile=4000 \
  > $O/compare.txt 2>&1
echo "compare rc $?" >> $L; tail -25 $O/compare.txt >> $L
t0=$SECONDS
timeout 220 $P/branch_bench --cells 2560,25600 --reps 7 --budget-s 200 --tsv $O/tiles.tsv \
  --variants gpu-cell,fold,edd-cut32,edd-c16-t1024,edd-c32-t512,edd-c32-t1024,edd-c32-t2048,edd-c64-t1024 \
  > $O/tiles.out 2>&1
echo "branch_bench rc $? in $((SECONDS - t0)) s" >> $L
grep -E "cells" $O/tiles.out >> $L
echo "== done in $SECONDS s" >> $L
cat $L
