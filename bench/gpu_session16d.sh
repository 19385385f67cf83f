#!/usr/bin/env bash
# Call 16d: EDD by tiles with every copy of a tile issued at once (its schedule staged too,
# asynchronously, with its rows; one record per tile made on the host): the gpu-branch
# GPU tests, memcheck and racecheck on the tiles' test; whole runs (busyring 256 cells ×
# 50 ms, recorded) compared between the CPU, untiled and tiled EDD; branch_bench at 256,
# 2,560 and 25,600 cells, tiled variants beside gpu-cell, the fold and untiled EDD;
# busyring 1,024 cells × 200 ms with untiled and tiled EDD. Pack: arbolito, gpu_tests,
# branch_bench (gzipped). Log: $OUT/s16d.log.
set -u
source bench/gpu_call_env.sh s16d
run_tests 'GpuBranch*' 'tile'
sanitize 'GpuBranch.EddTilesSameBitsAsUntiled' 'GpuBranch.EddTilesSameBitsAsUntiled'
sed -E -e 's/"num-cells": *[0-9]+/"num-cells": 256/' -e 's/"record": *false/"record": true/' \
  bench/models/busyring64.json > /tmp/rec.json
timeout 120 $P/arbolito compare /tmp/rec.json --tfinal 50 -o /tmp/cmp \
  --solvers cpu,gpu-branch:coupling=edd,gpu-branch:coupling=edd:tile=1024,gpu-branch:coupling=edd:tile=4000 \
  > $O/compare.txt 2>&1
echo "compare rc $?" >> $L; grep -A6 "^solver " $O/compare.txt | head -7 >> $L
t0=$SECONDS
timeout 220 $P/branch_bench --cells 25600,2560,256 --reps 7 --budget-s 200 --tsv $O/tiles.tsv \
  --variants gpu-cell,fold,edd-cut32,edd-c16-t1024,edd-c32-t512,edd-c32-t1024,edd-c32-t2048,edd-c64-t1024 \
  > $O/tiles.out 2>&1
echo "branch_bench rc $? in $((SECONDS - t0)) s" >> $L
grep -E "cells" $O/tiles.out | awk '{printf "%-6s %6s %-14s %8s ns/CV %7s floor\n", $1, $2, $6, $11, $13}' >> $L
t0=$SECONDS
bash bench/busyring_table.sh "1024" "gpu-branch:coupling=edd gpu-branch:coupling=edd:tile=2048 gpu-branch:coupling=edd:tile=4000" 200 $O/busy.tsv
echo "busyring in $((SECONDS - t0)) s" >> $L; cat $O/busy.tsv >> $L
echo "== done in $SECONDS s" >> $L
cat $L
