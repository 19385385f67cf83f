#!/usr/bin/env bash
# Call 15d: call 15c's table put 14 ms more beyond the kernel at 1,024 cells than call
# 14m's (0.036 against 0.022 s). Busyring 1,024 cells × 200 ms, three binaries in turn,
# three times: this one (the stream-ordered pool's first allocation at set-up),
# ea1928f's (call 15c) and call 15a's (HEAD 22a5611's event queue), --timings json; then
# this binary's --timeline. Pack: arbolito; arbolito-ea1928f and arbolito-15a gzipped.
# Log: $OUT/small15d.log, timeline $OUT/timeline_1024.csv.
set -u
source bench/gpu_call_env.sh small15d
sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": 1024/" examples/busyring.json > /tmp/b1024.json
for r in 1 2 3; do for b in arbolito arbolito-ea1928f arbolito-15a; do
  echo -n "$b: " >> $L
  $P/$b run /tmp/b1024.json --tfinal 200 --solver gpu-fine:step=resident --spikes-only --timings json -o /tmp/o.h5 2>/dev/null |
    tail -1 | python3 -c "import json,sys; d=json.load(sys.stdin); print('run %.4f fused %.4f beyond %.4f exchange %.4f exposed %.4f' % (d['run'], d['fused'], d['run']-d['fused'], d['exchange'], d['exchange_exposed']))" >> $L
done; done
$P/arbolito run /tmp/b1024.json --tfinal 200 --solver gpu-fine:step=resident --spikes-only --timeline $O/timeline_1024.csv \
  -o /tmp/o.h5 2>&1 | tail -1 >> $L
echo "== done in $SECONDS s" >> $L
cat $L
