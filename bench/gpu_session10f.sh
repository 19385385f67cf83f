#!/usr/bin/env bash
# Sixth device call of the tenth session (an experiment, reverted: 10-13 % slower): a level's branches dealt to all the block's warps
# (solvers/gpu/fine_block.cuh) instead of the first warps. gpu-fine tests (same bits as
# before: the CPU references) and racecheck; arbolito (new) against arbolito-old (commit
# fbfeccd), interleaved: resident and streaming gpu-fine, busyring 1,024 / 8,192 / 32,768
# cells × 50 ms; the per-level profile (arbolito-prof) at 8,192 × 20 ms. Log: $OUT/s10f.log.
set -u
source bench/gpu_call_env.sh s10f
run_tests 'GpuFine*:GpuResidentGroup.*:GpuCellGroup.PreparedEventsSameBits:GpuCellGroup.PointSumsSameBitsEveryRun'
sanitize '' 'GpuResidentGroup.SanitizerSmoke:GpuFine.SameBitsEveryRun'
baseline $P/arbolito-old
for r in 1 2; do
  beside "1024 8192" "gpu-fine:step=resident gpu-fine" 50 $O/new.tsv $O/old.tsv
done
beside "32768" "gpu-fine:step=resident" 50 $O/new.tsv $O/old.tsv
echo "== new" >> $L; cat $O/new.tsv >> $L; echo "== old (fbfeccd)" >> $L; cat $O/old.tsv >> $L
sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": 8192/" examples/busyring.json > /tmp/b8192.json
timeout 120 $P/arbolito-prof run /tmp/b8192.json --tfinal 20 --solver gpu-fine:step=resident --spikes-only -o /tmp/o.h5 2>&1 | grep "resident profile" >> $L
echo "== done in $SECONDS s" >> $L
cat $L
