#!/usr/bin/env bash
# Call 14a: twisted branches (FineSchedule::Twist, gpu-fine twist=auto: on for
# step=resident). Each level's longest branches are eliminated from both ends at once by
# two threads (the top piece from position 0 down, carrying the fill to the parent CV;
# the bottom piece as any branch), the junction row solved by the parent's thread one
# level up: a level's chain about halved. GPU tests (twists in every pass combination,
# resident against streaming with the same layout), sanitizers, then busyring × 50 ms
# against 89db5ba's binary (arbolito-base) and twist on/off on this binary, the phase
# clock with and without, the chain bench. Pack: GPU_PACK_BINS="arbolito gpu_tests
# chain_latency_bench", arbolito-prof (bench/resident_profile.sh) and arbolito-base
# gzipped beside them. Log: $OUT/twist.log.
set -u
source bench/gpu_call_env.sh twist
run_tests 'Gpu*Fine*:GpuResident*:GpuCellGroup.*' 'mixed sizes gpu-fine |mixed sizes gpu-fine step=resident:|busyring 64 gpu-fine :'
sanitize 'GpuResidentGroup.SanitizerSmoke' 'GpuResidentGroup.SanitizerSmoke'
R=gpu-fine:step=resident
baseline $P/arbolito-base
ab_check "$R gpu-fine" "$R"
variants "$R:twist=off gpu-fine:twist=on:threads=512 gpu-fine:twist=on" "$R:twist=off"
phase_profile $R $R:twist=off
chain_bench 64
echo "== done in $SECONDS s" >> $L
cat $L
