#!/usr/bin/env bash
# Fourth device call of the tenth session: where the resident kernel's time goes, by
# phase (arbolito-prof: bench/resident_profile.sh), busyring 1,024 / 8,192 / 32,768 cells
# × 20 ms, full and half-size cells (compartments [10, 1]) at 3 and 4 blocks per SM.
# Log: $OUT/s10d.log.
set -u
source bench/gpu_call_env.sh s10d
for n in 1024 8192 32768; do
  sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": $n/" examples/busyring.json > /tmp/b$n.json
  sed -E 's/"compartments": *\[20, *2\]/"compartments": [10, 1]/' /tmp/b$n.json > /tmp/h$n.json
done
run() {  # model solver
  echo "== $1 $2" >> $L
  timeout 120 $P/arbolito-prof run $1 --tfinal 20 --solver $2 --spikes-only --timings json -o /tmp/o.h5 2>/tmp/err > /tmp/out
  grep "resident profile" /tmp/err >> $L
  tail -1 /tmp/out | python3 -c "import json,sys; d=json.load(sys.stdin); print('run %.4f kernel %.4f ns %.5f spikes %d' % (d['run'], d['fused'], d['ns_per_cv_step'], d['n_spikes']))" >> $L
}
R=gpu-fine:step=resident
run /tmp/b1024.json $R
run /tmp/b8192.json $R
run /tmp/b32768.json $R
run /tmp/b8192.json $R:shared=55
run /tmp/h8192.json $R
run /tmp/h8192.json $R:shared=54
run /tmp/h8192.json $R:threads=64:shared=44
echo "== done in $SECONDS s" >> $L
cat $L
