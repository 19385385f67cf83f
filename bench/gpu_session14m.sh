#!/usr/bin/env bash
# Call 14m, the session's closing table on the final code (89db5ba's plus: each sweep
# chunk's row indices a chunk ahead, 14e; the resident kernel for blocks of up to 128
# threads at __launch_bounds__(128, 3), 14i; shared=auto the most that lets three blocks
# share a multiprocessor, 74 KiB on an H100, 14l): every GPU test, memcheck and racecheck
# on the resident smoke test, then final_table (bench/gpu_call_env.sh) with Arbor 0.12's
# GPU busyring beside. Pack: GPU_PACK_BINS="arbolito gpu_tests" bash bench/gpu_pack.sh
# build-gpu (then gzip gpu_tests); carry .gpu_deps and .arbor-gpu. Log: $OUT/final14m.log.
set -u
source bench/gpu_call_env.sh final14m
run_tests '' 'identical|mixed sizes gpu-fine step=resident:'
sanitize 'GpuResidentGroup.SanitizerSmoke' 'GpuResidentGroup.SanitizerSmoke'
final_table
echo "== done in $SECONDS s" >> $L
cat $L
