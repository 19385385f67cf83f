#!/usr/bin/env bash
# Call 14t: the run's last exchange only counts its events instead of queueing them (they
# all fall after the run's end, and the run waited for them; call 14s's timings put some
# 0.1 s of a 32,768-cell run beyond the kernel that the pipelined exchanges do not
# explain). The resident step's tests; busyring 32,768 × 50 ms twice with this binary
# and call 14q's (arbolito-q), --timings json; then the closing table (final_table) on
# this binary with Arbor 0.12 beside. Pack: arbolito gpu_tests, arbolito-q gzipped.
# Log: $OUT/final14t.log.
set -u
source bench/gpu_call_env.sh final14t
run_tests 'GpuResidentGroup.*'
sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": 32768/" examples/busyring.json > /tmp/b32.json
for r in 1 2; do for b in arbolito arbolito-q; do
  echo -n "$b: " >> $L
  $P/$b run /tmp/b32.json --tfinal 50 --solver gpu-fine:step=resident --spikes-only --timings json -o /tmp/o.h5 2>/dev/null |
    tail -1 | python3 -c "import json,sys; d=json.load(sys.stdin); print('run %.4f fused %.4f beyond %.4f exchange_exposed %.4f events %d' % (d['run'], d['fused'], d['run']-d['fused'], d['exchange_exposed'], d['n_events']))" >> $L
done; done
final_table
echo "== done in $SECONDS s" >> $L
cat $L
