#!/usr/bin/env bash
# Call 15b: the event queue's buffers grow in stream order through fixed page-locked
# chunks (no cudaFree / cudaMallocHost while the kernels run) and an epoch is one piece
# up to a 256-MiB spike buffer (32,768 busyring cells had 64 + 36 steps), both from call
# 15a's timeline. The GPU tests; memcheck on the event queue and the resident step;
# outputs byte-identical to call 15a's binary (arbolito-base: HEAD 22a5611's kernels);
# busyring 32,768 and 8,192 cells × 50 ms with both binaries side by side (twice), and
# the new binary's --timeline of both sizes. Pack: arbolito gpu_tests, arbolito-base
# gzipped. Log: $OUT/queue15b.log, timelines $OUT/timeline_N.csv.
set -u
source bench/gpu_call_env.sh queue15b
run_tests 'GpuEventQueue.*:GpuResidentGroup.*'
run_tests
sanitize 'GpuEventQueue.*:GpuResidentGroup.SanitizerSmoke' 'GpuEventQueue.*'
same_outputs arbolito arbolito-base gpu-fine:step=resident gpu-fine gpu-cell
for n in 32768 8192; do
  sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": $n/" examples/busyring.json > /tmp/b$n.json
done
for r in 1 2; do for n in 32768 8192; do for b in arbolito arbolito-base; do
  echo -n "$n cells, $b: " >> $L
  $P/$b run /tmp/b$n.json --tfinal 50 --solver gpu-fine:step=resident --spikes-only --timings json -o /tmp/o.h5 2>/dev/null |
    tail -1 | python3 -c "import json,sys; d=json.load(sys.stdin); print('run %.4f fused %.4f beyond %.4f exchange_exposed %.4f events %d spikes %d' % (d['run'], d['fused'], d['run']-d['fused'], d['exchange_exposed'], d['n_events'], d['n_spikes']))" >> $L
done; done; done
for n in 32768 8192; do
  $P/arbolito run /tmp/b$n.json --tfinal 50 --solver gpu-fine:step=resident --spikes-only --timeline $O/timeline_$n.csv \
    -o /tmp/o.h5 2>&1 | tail -1 >> $L
done
echo "== done in $SECONDS s" >> $L
cat $L
