#!/usr/bin/env bash
# Call 14e: each chunk's row indices loaded a chunk ahead (fine_sweeps.hpp: eliminate_rows
# and substitute_rows take the chunk's indices and leave the next chunk's). Before, a
# chunk's data loads waited on its position offsets' loads, two shared-memory latencies
# before the continuant could start (seen in the SASS of 89db5ba's kernels); now one. The
# arithmetic is untouched: outputs must be the base binary's to the byte (cmp of the
# HDF5 files, busyring 256 cells with soma traces). Also split=cost's level cost 8 rows
# instead of 6 (arbolito-s8, ARBOLITO_SPLIT_LEVEL_ROWS=8.0; call 13c's phase clock fitted
# 7.7). Tests, chain bench, busyring 50 ms beside arbolito-base (89db5ba), the phase
# clock. Pack: arbolito gpu_tests chain_latency_bench, arbolito-base, -prof, -s8
# gzipped. Log: $OUT/ahead_idx.log.
set -u
source bench/gpu_call_env.sh ahead_idx
run_tests 'GpuFine.*:GpuResidentGroup.*:GpuCellGroup.*' 'mixed sizes gpu-fine step=resident:|busyring 64 gpu-fine :'
chain_bench 64
same_outputs arbolito arbolito-base gpu-fine:step=resident gpu-fine
R=gpu-fine:step=resident
baseline $P/arbolito-base
variant_deps /tmp/g8 arbolito-s8
for r in 1 2; do
  beside "8192" "$R gpu-fine" 50 $O/new.tsv $O/base.tsv
  GPU_DEPS=/tmp/g8 bash bench/busyring_table.sh "8192" "$R" 50 $O/s8.tsv
done
beside "32768" "$R" 50 $O/new32.tsv $O/base32.tsv
GPU_DEPS=/tmp/g8 bash bench/busyring_table.sh "32768" "$R" 50 $O/s8.tsv
log_tsvs new base s8 new32 base32
phase_profile $R
echo "== done in $SECONDS s" >> $L
cat $L
