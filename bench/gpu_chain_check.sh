#!/usr/bin/env bash
# Ready for a device call (not yet run): what one row of gpu-fine's branch sweeps costs,
# by the SM's clock (bench/chain_latency_bench.cu), to check the claim that the resident
# step's solve is bound by each row's dependent chain (docs/gpu-backend.md). Pack with
# GPU_PACK_BINS="arbolito gpu_tests chain_latency_bench" bash bench/gpu_pack.sh build-gpu.
# Log: $OUT/chain_latency.log.
set -u
source bench/gpu_call_env.sh chain_latency
for r in 16 64; do timeout 60 $P/chain_latency_bench --rows $r >> $L 2>&1; done
cat $L
