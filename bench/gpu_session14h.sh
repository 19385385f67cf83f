#!/usr/bin/env bash
# Call 14h, the session's closing table (109c627's code: 89db5ba's with each sweep
# chunk's row indices loaded a chunk ahead, call 14e): the GPU tests of gpu-fine, the
# resident step and the cell group, then final_table (bench/gpu_call_env.sh): busyring
# 200 ms, the resident step at 1,024 / 8,192 / 32,768 cells, streaming gpu-fine at
# 8,192 / 32,768, gpu-cell at 32,768, and Arbor 0.12's GPU busyring (.arbor-gpu) beside
# them. Pack: GPU_PACK_BINS="arbolito gpu_tests" bash bench/gpu_pack.sh build-gpu (then
# gzip gpu_tests); carry .gpu_deps and .arbor-gpu. Log: $OUT/final14.log.
set -u
source bench/gpu_call_env.sh final14
run_tests 'Gpu*Fine*:GpuResident*:GpuCellGroup.*' 'identical|mixed sizes gpu-fine step=resident:'
final_table
echo "== done in $SECONDS s" >> $L
cat $L
