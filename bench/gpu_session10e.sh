#!/usr/bin/env bash
# Fifth device call of the tenth session: the resident solve's cost per level (cycles and
# longest branch per block-step, arbolito-prof from bench/resident_profile.sh), busyring
# 8,192 cells × 20 ms: defaults, 4 rows ahead, split off. Log: $OUT/s10e.log.
set -u
source bench/gpu_call_env.sh s10e
sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": 8192/" examples/busyring.json > /tmp/b8192.json
for s in gpu-fine:step=resident gpu-fine:step=resident:ahead=4 gpu-fine:step=resident:split=off; do
  echo "== $s" >> $L
  timeout 120 $P/arbolito-prof run /tmp/b8192.json --tfinal 20 --solver $s --spikes-only --timings json -o /tmp/o.h5 2>/tmp/err > /tmp/out
  grep "resident profile" /tmp/err >> $L
  tail -1 /tmp/out | python3 -c "import json,sys; d=json.load(sys.stdin); print('run %.4f kernel %.4f ns %.5f spikes %d' % (d['run'], d['fused'], d['ns_per_cv_step'], d['n_spikes']))" >> $L
done
echo "== done in $SECONDS s" >> $L
cat $L
