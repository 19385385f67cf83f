#!/usr/bin/env bash
# Call 14j: the resident step's substitution with its data a chunk ahead too
# (fine_sweeps::forward_ahead; arbolito-subdata, ARBOLITO_SUB_DATA_AHEAD): each chunk's f
# and g loaded while the chunk before runs its chain. Calls 13d and 11 pipelined both
# sweeps under a 128-register cap and lost; the resident kernel now has 168 (call 14i),
# and the substitution's chain is one multiply-add a row, so its chunk's load latency
# is most of its cost. Same bits: outputs compared byte for byte with this call's
# arbolito (27b0d21). Busyring 50 ms beside it. Pack: arbolito gpu_tests,
# arbolito-subdata gzipped. Log: $OUT/subdata.log.
set -u
source bench/gpu_call_env.sh subdata
sed -E -e 's/"num-cells": *[0-9]+/"num-cells": 256/' -e 's/"record": *false/"record": true/' bench/models/busyring64.json > /tmp/rec.json
$P/arbolito-subdata run /tmp/rec.json --tfinal 50 --solver gpu-fine:step=resident -o /tmp/new.h5 > /dev/null 2>&1
$P/arbolito run /tmp/rec.json --tfinal 50 --solver gpu-fine:step=resident -o /tmp/base.h5 > /dev/null 2>&1
cmp /tmp/new.h5 /tmp/base.h5 && echo "subdata: outputs byte-identical" >> $L || echo "subdata: outputs DIFFER" >> $L
R=gpu-fine:step=resident
mkdir -p /tmp/gsd/prebuilt && ln -sfn $PWD/.gpu_deps/lib /tmp/gsd/lib && cp $P/arbolito-subdata /tmp/gsd/prebuilt/arbolito
for r in 1 2; do
  GPU_DEPS=/tmp/gsd bash bench/busyring_table.sh "8192" "$R" 50 $O/sd.tsv
  bash bench/busyring_table.sh "8192" "$R" 50 $O/cur.tsv
done
GPU_DEPS=/tmp/gsd bash bench/busyring_table.sh "32768" "$R" 50 $O/sd.tsv
bash bench/busyring_table.sh "32768" "$R" 50 $O/cur.tsv
for f in sd cur; do echo "== $f" >> $L; cat $O/$f.tsv >> $L; done
echo "== done in $SECONDS s" >> $L
cat $L
