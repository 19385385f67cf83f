#!/usr/bin/env bash
# Call 14d: why twists slow the resident kernel (call 14c: 1.55 s against 1.12 without
# them at 8,192 cells, though each level's longest chain is about halved; the phase clock
# puts ~800-1,400 more cycles into every elimination level, even level 0, which has no
# twist, and the events phase grows from 6.5 to 10.3 %). The suspect: instruction fetch
# (the kernel is ~300 KB of code; the step's hot path may not fit the SM's instruction
# caches, and more code makes every phase miss more). Nsight Compute's stall reasons per
# issued instruction on one 100-step epoch kernel, busyring 8,192 cells: 89db5ba's binary,
# this one with twists, and without. Pack as 14c. Log: $OUT/stalls.log.
set -u
source bench/gpu_call_env.sh stalls
ncu --version | tail -1 >> $L
sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": 8192/" examples/busyring.json > /tmp/b.json
M='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
M2=smsp__average_warp_latency_per_inst_issued.ratio,gpu__time_duration.sum,smsp__inst_executed.sum,sm__instruction_throughput.avg.pct_of_peak_sustained_active
for v in "base gpu-fine:step=resident" "new gpu-fine:step=resident" "new gpu-fine:step=resident:twist=off"; do
  set -- $v; B=$P/arbolito; [ $1 = base ] && B=$P/arbolito-base
  echo "== ncu $v" >> $L
  timeout 150 ncu --clock-control none -k regex:resident_kernel --launch-skip 1 --launch-count 1 --metrics "$M,$M2" \
    $B run /tmp/b.json --tfinal 8 --solver $2 --spikes-only -o /tmp/o.h5 > $O/ncu_$1_$(echo $2 | tr ':=' '__').txt 2>&1
  echo "rc $? at $SECONDS s" >> $L
  grep -E "smsp__|gpu__time|sm__inst" $O/ncu_$1_$(echo $2 | tr ':=' '__').txt | awk '$NF+0 > 0.05 || /time|inst/' >> $L
done
echo "== done in $SECONDS s" >> $L
cat $L
