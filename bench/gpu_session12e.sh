#!/usr/bin/env bash
# Call 12e: the resident step's shape again after call 12a's batched loads (assembly and
# currents now wait less on device memory, so arrays out of shared memory may cost less):
# 128 threads at 72 KiB (three blocks per SM, the default), 64 threads at 72 KiB (three
# blocks of two warps: cheaper barriers), 55 KiB (four blocks), 64 threads at 55 KiB.
# Busyring 8,192 cells × 50 ms, twice each. Log: $OUT/shape.log.
set -u
source bench/gpu_call_env.sh shape
R=gpu-fine:step=resident
for r in 1 2; do bash bench/busyring_table.sh "8192" "$R $R:threads=64 $R:shared=55 $R:threads=64:shared=55" 50 $O/v8k.tsv; done
cat $O/v8k.tsv >> $L
echo "== done in $SECONDS s" >> $L
cat $L
