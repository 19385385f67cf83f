#!/usr/bin/env bash
# Call 14g: call 14f's heads made the kernel 8.7 % slower than 14e's (arbolito-idx), and
# its code 66 KB larger: the level loop called backward and forward twice each (the
# preloaded first branch, then the rest of a level wider than the block), each call a
# whole inlined sweep. Now one call each (the head reloaded in the loop where a level is
# wider than the block): 18 KB more than 14e's code. Outputs byte for byte against
# 89db5ba's; busyring 50 ms beside arbolito-idx and arbolito-base. Pack: arbolito
# gpu_tests chain_latency_bench, arbolito-base, -idx gzipped. Log: $OUT/heads1.log.
set -u
source bench/gpu_call_env.sh heads1
run_tests 'GpuFine.*:GpuResidentGroup.SameBits*:GpuResidentGroup.Mixed*'
same_outputs arbolito arbolito-base gpu-fine:step=resident gpu-fine
R=gpu-fine:step=resident
baseline $P/arbolito-base
variant_deps /tmp/gidx arbolito-idx
for r in 1 2; do
  beside "8192" "$R gpu-fine" 50 $O/new.tsv $O/base.tsv
  GPU_DEPS=/tmp/gidx bash bench/busyring_table.sh "8192" "$R gpu-fine" 50 $O/idx.tsv
done
bash bench/busyring_table.sh "32768" "$R" 50 $O/new32.tsv
GPU_DEPS=/tmp/gidx bash bench/busyring_table.sh "32768" "$R" 50 $O/idx.tsv
log_tsvs new base idx new32
echo "== done in $SECONDS s" >> $L
cat $L
