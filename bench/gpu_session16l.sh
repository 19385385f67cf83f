#!/usr/bin/env bash
# Call 16l: the session's final binary. Every GPU test (the known edd:cut=8 ring aside);
# memcheck on gpu-branch's solver tests, racecheck on the tiles' test; whole runs of busyring
# 256 cells × 50 ms (recorded) compared between untiled and tiled EDD (max |dV| between
# them); the busyring table, 200 ms, at 1,024 and 8,192 cells with every solver (EDD tiled
# by tile=auto and untiled) and auto, then Arbor 0.12's GPU busyring at both sizes. Pack:
# arbolito, gpu_tests (gzipped); carry .arbor-gpu. Log: $OUT/s16l.log.
set -u
source bench/gpu_call_env.sh s16l
run_tests '' 'tile'
grep -E "actual|trace" $O/tests.log | head -6 >> $L
sanitize 'GpuBranch.*' 'GpuBranch.EddTilesSameBitsAsUntiled'
sed -E -e 's/"num-cells": *[0-9]+/"num-cells": 256/' -e 's/"record": *false/"record": true/' \
  bench/models/busyring64.json > /tmp/rec.json
timeout 120 $P/arbolito compare /tmp/rec.json --tfinal 50 -o /tmp/cmp \
  --solvers gpu-branch:coupling=edd:tile=0,gpu-branch:coupling=edd,gpu-branch:coupling=edd:tile=4000 > $O/compare.txt 2>&1
echo "compare rc $?" >> $L; grep -A4 "^solver " $O/compare.txt | head -5 >> $L
t0=$SECONDS
S="gpu-fine:step=resident gpu-fine gpu-branch:coupling=fold gpu-branch:coupling=edd gpu-branch:coupling=edd:tile=0 gpu-cell auto"
bash bench/busyring_table.sh "1024 8192" "$S" 200 $O/table.tsv
echo "arbolito table in $((SECONDS - t0)) s" >> $L; cat $O/table.tsv >> $L
t0=$SECONDS
OUT=/tmp/arb RUN_TIMEOUT=120 timeout 150 bash .arbor-gpu/run.sh 1024 8192 > /tmp/arb.log 2>&1; echo "arbor 1024 8192 rc $? in $((SECONDS - t0)) s" >> $L
cp /tmp/arb/arbor_busyring_summary.tsv $O/arbor_small.tsv 2>/dev/null; cat /tmp/arb/arbor_busyring_summary.tsv >> $L 2>/dev/null
echo "== done in $SECONDS s" >> $L
cat $L
