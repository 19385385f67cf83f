#!/usr/bin/env bash
# Seventh device call of the tenth session: Nsight Compute on one resident epoch kernel
# (busyring 1,024 cells, the second epoch), warp state statistics and per-SASS-instruction
# stall samples (source page), to see what a row of the solve's elimination waits on.
# Files: $OUT/ncu_details.txt, $OUT/ncu_source.csv. Log: $OUT/s10g.log.
set -u
source bench/gpu_call_env.sh s10g
ncu --version | tail -1 >> $L
sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": 1024/" examples/busyring.json > /tmp/b.json
A="$P/arbolito run /tmp/b.json --tfinal 6 --solver gpu-fine:step=resident --spikes-only -o /tmp/o.h5"
timeout 200 ncu --clock-control none -k regex:resident_kernel --launch-skip 1 --launch-count 1 \
  --section WarpStateStats --section SourceCounters --section SpeedOfLight --section Occupancy $A > $O/ncu_details.txt 2>&1
echo "details rc $?" >> $L
timeout 200 ncu --clock-control none -k regex:resident_kernel --launch-skip 1 --launch-count 1 \
  --section SourceCounters --section WarpStateStats --page source --print-source sass --csv $A > $O/ncu_source.csv 2>&1
echo "source rc $? lines $(wc -l < $O/ncu_source.csv)" >> $L
grep -E "Duration|Warp Cycles Per Issued|Stall|Achieved Occupancy|Theoretical Occupancy" $O/ncu_details.txt | head -30 >> $L
echo "== done in $SECONDS s" >> $L
cat $L
