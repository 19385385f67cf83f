#!/usr/bin/env bash
# Second device call of the ninth session: the resident step after the events' block
# bits moved to the device (arbolito) against the binary before (arbolito-old) and an
# experimental build with a shorter dependent chain per row (arbolito-chain: reciprocal
# with one Newton-like step of order 3, d' = dp - u²/d), plus resident's split and ahead
# options; busyring 1,024 and 8,192 cells, 50 ms. Spikes to $OUT for bit comparison.
set -u
source bench/gpu_call_env.sh s9b
run_tests 'GpuResidentGroup.*:GpuFineGroup.*:EventQueue*:GpuEvent*'
for n in 1024 8192; do sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": $n/" examples/busyring.json > /tmp/b$n.json; done
run() {  # n binary solver tag
  timeout 60 $P/$2 run /tmp/b$1.json --tfinal 50 --solver $3 --spikes-only --timings json -o $O/$1_$4.h5 2>/dev/null | tail -1 |
    python3 -c "import json,sys; d=json.load(sys.stdin); print('$1 $4 run %.4f fused %.4f setup %.2f ns %.4f spikes %d' % (d['run'], d['fused'], d['setup'], d['ns_per_cv_step'], d['n_spikes']))" >> $L
}
for rep in 1 2; do for n in 1024 8192; do
  run $n arbolito-old gpu-fine:step=resident old$rep
  run $n arbolito gpu-fine:step=resident ev$rep
  run $n arbolito-chain gpu-fine:step=resident chain$rep
done; done
for n in 1024 8192; do
  run $n arbolito gpu-fine:step=resident:split=on split
  run $n arbolito gpu-fine:step=resident:ahead=4 a4
  run $n arbolito gpu-fine gf
  run $n arbolito-chain gpu-fine gfchain
done
echo "== done in $SECONDS s" >> $L
cat $L
