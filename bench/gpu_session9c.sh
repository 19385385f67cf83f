#!/usr/bin/env bash
# Third device call of the ninth session: the GPU suite with split on by default and the
# fan-out at set-up; busyring 8,192 and 1,024 cells × 200 ms on the resident step, the
# session's starting binary (arbolito-old, 99ce7ab) beside; split and shared variants at
# 50 ms; streaming gpu-fine with split on and off; busyring 32,768's host set-up, old
# against new (bench/setup_scale.sh). Log: $OUT/s9c.log.
set -u
source bench/gpu_call_env.sh s9c
run_tests '' 'Which is|max'
for n in 1024 8192; do sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": $n/" examples/busyring.json > /tmp/b$n.json; done
run() {  # n binary solver tag tfinal
  timeout 90 $P/$2 run /tmp/b$1.json --tfinal $5 --solver $3 --spikes-only --timings json -o /tmp/$1_$4.h5 2>/dev/null | tail -1 |
    python3 -c "import json,sys; d=json.load(sys.stdin); print('$1 $5ms $4 run %.4f fused %.4f setup %.2f ns %.5f spikes %d' % (d['run'], d['fused'], d['setup'], d['ns_per_cv_step'], d['n_spikes']))" >> $L
}
echo "== 200 ms" >> $L
run 8192 arbolito gpu-fine:step=resident res 200
run 8192 arbolito gpu-fine:step=resident:timing=off res-notiming 200
run 8192 arbolito-old gpu-fine:step=resident old-res 200
run 1024 arbolito gpu-fine:step=resident res 200
run 1024 arbolito-old gpu-fine:step=resident old-res 200
echo "== 50 ms variants" >> $L
for v in "" ":split=off" ":shared=64" ":shared=80" ":threads=256:shared=110"; do run 8192 arbolito gpu-fine:step=resident$v "res$v" 50; done
for n in 1024 8192; do for v in "" ":split=off"; do run $n arbolito gpu-fine$v "gf$v" 50; done; done
echo "== set-up, 32,768 cells" >> $L
TMPDIR=/tmp timeout 200 bash bench/setup_scale.sh $P/arbolito-old $P/arbolito 32768 16 2 >> $L 2>&1
echo "== done in $SECONDS s" >> $L
cat $L
