#!/usr/bin/env bash
# Call 13b: the elimination with each row's reciprocal predicted off the chain
# (solvers/fine_sweeps.hpp: the continuant of the branch's rows predicts 1 / d', the chain
# corrects it by one Newton step: three multiply-adds a row), for streaming gpu-fine and
# the resident step alike. Call 13a's pure continuant (q and f from the continuant
# itself) was faster but failed the mixed-sizes model's 1e-6 mV against the CPU (5.3e-6);
# this keeps the pivot form's arithmetic. Against d4ae0c6's binary (arbolito-base): every
# GPU test, the chain bench, memcheck and racecheck on the resident smoke test, busyring
# 8,192 cells × 50 ms twice and 32,768 once beside the base, the phase clock. Pack:
# GPU_PACK_BINS="arbolito gpu_tests chain_latency_bench" bash bench/gpu_pack.sh build-gpu;
# arbolito-base (d4ae0c6) and arbolito-prof (bench/resident_profile.sh) stripped and
# gzipped beside them. Log: $OUT/pred.log.
# Its code (13c's without the issue order: each row's prediction, stores and chain in
# one loop) was never committed; 98b8d69 holds 13c's.
set -u
source bench/gpu_call_env.sh pred
run_tests '' 'mixed sizes gpu-fine|mixed sizes.*resident'
chain_bench 64
sanitize 'GpuResidentGroup.SanitizerSmoke' 'GpuResidentGroup.SanitizerSmoke'
R=gpu-fine:step=resident
baseline $P/arbolito-base
ab_check "$R $R:ahead=4 gpu-fine" "$R $R:ahead=4"
phase_profile $R $R:ahead=4
echo "== done in $SECONDS s" >> $L
cat $L
