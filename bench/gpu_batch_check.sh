#!/usr/bin/env bash
# Ready for the next session's first device call (not yet run). What was built after
# call 11f: the resident step's assembly and density currents load four CVs' (instances')
# inputs before their arithmetic (core/strided_batches.hpp: assemble_strided,
# add_density_currents). The phase clock gave assembly 8 % and currents 15 % of the
# kernel, and at the default 72 KiB their per-CV inputs (cap_dt, the pas columns) stay in
# device memory: expected, one memory latency per CV the thread takes, unbatched (this call
# measures it). Same arithmetic
# per CV: the same bits (host test StridedBatches.BlockLoopsSameBitsAsItemByItem; on the
# GPU, GpuResidentGroup.SameBitsAsStreaming). Then the chain bench (gpu_chain_check.sh).
# Pack: GPU_PACK_BINS="arbolito gpu_tests chain_latency_bench" bash bench/gpu_pack.sh
# build-gpu, with arbolito-base.gz (6152138, call 11f's binary) and arbolito-prof.gz
# (bench/resident_profile.sh) beside them. Log: $OUT/batch.log.
set -u
source bench/gpu_call_env.sh batch
run_tests
sanitize 'GpuResidentGroup.SanitizerSmoke' 'GpuResidentGroup.SanitizerSmoke'
R=gpu-fine:step=resident
baseline $P/arbolito-base
ab_check "$R gpu-fine"
phase_profile $R
for r in 16 64; do timeout 60 $P/chain_latency_bench --rows $r >> $L 2>&1; done
echo "== done in $SECONDS s" >> $L
cat $L
