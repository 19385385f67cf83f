#!/usr/bin/env bash
# Call 14s: the resident run's time beyond its kernel, from the run's own timings (no
# Nsight Systems on this machine, call 14r): the whole --timings json of busyring 8,192
# and 32,768 cells × 50 ms with the resident step (exchange, exchange_exposed beside run
# and fused). Log: $OUT/timings.log.
set -u
source bench/gpu_call_env.sh timings
for n in 8192 32768; do
  sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": $n/" examples/busyring.json > /tmp/b$n.json
  $P/arbolito run /tmp/b$n.json --tfinal 50 --solver gpu-fine:step=resident --spikes-only --timings json -o /tmp/o.h5 2>/dev/null | tail -1 >> $L
done
echo "== done in $SECONDS s" >> $L
cat $L
