#!/usr/bin/env bash
# Call 17d: EDD by tiles with the L2 prefetch and the first wave's skew as options
# (gpu-branch prefetch=, skew=; branch_bench --tile-prefetch/--tile-skew-ns): the
# gpu-branch GPU tests, memcheck on the new prefetch test, racecheck on the tiles' test;
# whole runs (busyring 256 × 50 ms) byte-identical between EDD by tiles with and without
# both; branch_bench tuning at 25,600 cells (skew 0 … 12,000 ns; prefetch auto, none and
# fixed distances) and the study's multi cells at 256,000. Log: $OUT/s17d.log.
set -u
source bench/gpu_call_env.sh s17d
run_tests 'GpuBranch*:SolverAuto*' 'Prefetch'
sanitize 'GpuBranch.EddTilesPrefetchAndSkewSameBits' 'GpuBranch.EddTilesSameBitsAsUntiled'
sed -E -e 's/"num-cells": *[0-9]+/"num-cells": 4096/' -e 's/"record": *false/"record": true/' bench/models/busyring64.json > /tmp/rec.json
timeout 200 $P/arbolito compare /tmp/rec.json --tfinal 20 -o /tmp/cmp \
  --solvers gpu-branch:coupling=edd:tile=0,gpu-branch:coupling=edd:tile=1024:prefetch=50:skew=8000,gpu-branch:coupling=edd:tile=1024:prefetch=0:skew=0 \
  > $O/compare.txt 2>&1
echo "compare rc $?" >> $L; grep -A6 "^solver " $O/compare.txt | head -7 >> $L
V=gpu-cell,edd-c32-t1024,edd-c32-t512
b() { timeout 100 $P/branch_bench --reps 9 --variants $V "$@" 2>&1 | grep -E "^[a-z0-9]+ +[0-9]+ cells" |
  awk '{printf "%-6s %6s %-14s %8s\n", $1, $2, $6, $11}' >> $L; }
for T in 0 4000 8000 12000; do echo "== prefetch auto, skew $T" >> $L; b --cells 25600 --sets multi,2,deep --tile-skew-ns $T; done
for F in 0 230 460 700; do echo "== prefetch $F, skew auto" >> $L; b --cells 25600 --sets multi,2 --tile-prefetch $F; done
echo "== defaults, 2,560" >> $L; b --cells 2560 --sets multi,2,deep,real
echo "== 256,000 multi" >> $L
timeout 200 $P/branch_bench --cells 256000 --sets multi --reps 7 --variants gpu-cell,edd-c32-t1024,edd-c32-t1024-plain 2>&1 |
  grep -E "^[a-z0-9]+ +[0-9]+ cells" | awk '{printf "%-6s %6s %-20s %8s\n", $1, $2, $6, $11}' >> $L
echo "== done in $SECONDS s" >> $L
cat $L
