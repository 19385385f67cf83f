#!/usr/bin/env bash
# Call 14f: each level's descriptor and every thread's first branch's head (length, row
# 0's index, its children's range, its first chunk's indices: schedule only, which nothing
# writes) loaded before the barrier that ends the level before it (fine_block.cuh), on
# top of call 14e's indices a chunk ahead (arbolito-idx: 119401c). Variant arbolito-sub8:
# the resident step's substitution in chunks of 8 rows (ARBOLITO_SUB_AHEAD=8; the
# elimination keeps 4). The arithmetic is untouched: outputs compared byte for byte with
# arbolito-base (89db5ba). Tests, busyring 50 ms, the phase clock. Pack: arbolito
# gpu_tests chain_latency_bench, arbolito-base, -idx, -sub8, -prof gzipped. Log:
# $OUT/heads.log.
set -u
source bench/gpu_call_env.sh heads
run_tests 'GpuFine.*:GpuResidentGroup.*:GpuCellGroup.*' 'mixed sizes gpu-fine step=resident:|busyring 64 gpu-fine :'
for b in arbolito arbolito-sub8; do same_outputs $b arbolito-base gpu-fine:step=resident gpu-fine; done
R=gpu-fine:step=resident
baseline $P/arbolito-base
for v in idx sub8; do variant_deps /tmp/g$v arbolito-$v; done
for r in 1 2; do
  beside "8192" "$R gpu-fine" 50 $O/new.tsv $O/base.tsv
  GPU_DEPS=/tmp/gidx bash bench/busyring_table.sh "8192" "$R gpu-fine" 50 $O/idx.tsv
  GPU_DEPS=/tmp/gsub8 bash bench/busyring_table.sh "8192" "$R" 50 $O/sub8.tsv
done
bash bench/busyring_table.sh "32768" "$R" 50 $O/new32.tsv
GPU_DEPS=/tmp/gidx bash bench/busyring_table.sh "32768" "$R" 50 $O/idx.tsv
GPU_DEPS=/tmp/gsub8 bash bench/busyring_table.sh "32768" "$R" 50 $O/sub8.tsv
log_tsvs new base idx sub8 new32
phase_profile $R
echo "== done in $SECONDS s" >> $L
cat $L
