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
same_outputs arbolito-subdata arbolito gpu-fine:step=resident
R=gpu-fine:step=resident
variant_deps /tmp/gsd arbolito-subdata
for r in 1 2; do
  GPU_DEPS=/tmp/gsd bash bench/busyring_table.sh "8192" "$R" 50 $O/sd.tsv
  bash bench/busyring_table.sh "8192" "$R" 50 $O/cur.tsv
done
GPU_DEPS=/tmp/gsd bash bench/busyring_table.sh "32768" "$R" 50 $O/sd.tsv
bash bench/busyring_table.sh "32768" "$R" 50 $O/cur.tsv
log_tsvs sd cur
echo "== done in $SECONDS s" >> $L
cat $L
