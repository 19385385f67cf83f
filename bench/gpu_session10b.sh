#!/usr/bin/env bash
# Second device call of the tenth session, measurements only (binaries of the first call):
# (1) streaming gpu-fine with 4 rows ahead against 8 (its default) and gpu-cell, busyring
# 32,768 cells × 50 ms (issue 11: no slower than gpu-cell); (2) does the resident step
# gain from more blocks per SM when everything the solve reads stays in shared memory?
# Busyring cells of half the CVs (compartments [10, 1], about 900 CVs), 8,192 cells × 50
# ms, 3, 4 and 5 blocks per SM (shared= and threads=). Log: $OUT/s10b.log.
set -u
source bench/gpu_call_env.sh s10b
bash bench/busyring_table.sh "32768" "gpu-cell gpu-fine gpu-fine:ahead=4 gpu-fine:ahead=4:split=off" 50 $O/ahead.tsv
cat $O/ahead.tsv >> $L
sed -E 's/"compartments": *\[20, *2\]/"compartments": [10, 1]/; s/"num-cells": *[0-9]+/"num-cells": 8192/' examples/busyring.json > /tmp/half.json
grep compartments /tmp/half.json >> $L
echo -e "solver\trun_s\tkernel_s\tns_per_cv_step\tn_cv\tspikes" >> $L
for r in 1 2; do
for s in gpu-fine:step=resident:threads=128:shared=72 gpu-fine:step=resident:threads=128:shared=54 gpu-fine:step=resident:threads=96:shared=44 gpu-fine:step=resident:threads=64:shared=44 gpu-fine:step=resident:threads=64:shared=36; do
  timeout 100 $P/arbolito run /tmp/half.json --tfinal 50 --solver $s --spikes-only --timings json -o /tmp/o.h5 2>/tmp/err | tail -1 |
    python3 -c "import json,sys; d=json.load(sys.stdin); print('$s\t%.4f\t%.4f\t%.5f\t%d\t%d' % (d['run'], d['fused'], d['ns_per_cv_step'], d['n_cv'], d['n_spikes']))" >> $L || tail -2 /tmp/err >> $L
done; done
echo "== done in $SECONDS s" >> $L
cat $L
