#!/usr/bin/env bash
# Call 15e, the session's last checks on a71e99e: every GPU test; memcheck on the event
# queue and the resident smoke test; the resident step repeated at 32,768 and 8,192
# busyring cells × 200 ms (call 15c's figures); then issue 12's multi-morphology study
# at 2,560 and 25,600 cells (multi and deep sets) on today's code, whose gpu-fine solve
# has changed since the fifth session's table. Pack: arbolito, gpu_tests (gzipped),
# branch_bench (stripped, gzipped). Log: $OUT/last15e.log, $OUT/branch.tsv.
set -u
source bench/gpu_call_env.sh last15e
run_tests '' 'identical|mixed sizes gpu-fine step=resident:'
sanitize 'GpuEventQueue.*:GpuResidentGroup.SanitizerSmoke' ''
for n in 32768 8192; do
  sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": $n/" examples/busyring.json > /tmp/b$n.json
  echo -n "$n cells × 200 ms, resident: " >> $L
  $P/arbolito run /tmp/b$n.json --tfinal 200 --solver gpu-fine:step=resident --spikes-only --timings json -o /tmp/o.h5 2>/dev/null |
    tail -1 | python3 -c "import json,sys; d=json.load(sys.stdin); print('run %.4f kernel %.4f ns %.5f spikes %d' % (d['run'], d['fused'], d['ns_per_cv_step'], d['n_spikes']))" >> $L
done
t0=$SECONDS
timeout 240 $P/branch_bench --cells 2560,25600 --sets multi,deep --reps 7 --variants gpu-cell,gpu-fine,fold,edd,edd-cut32 \
  --tsv $O/branch.tsv --summary $O/branch_summary.txt > $O/branch.out 2>&1
echo "branch_bench rc $? in $((SECONDS - t0)) s" >> $L
cat $O/branch_summary.txt >> $L 2>/dev/null || tail -20 $O/branch.out >> $L
echo "== done in $SECONDS s" >> $L
cat $L
