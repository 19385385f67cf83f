#!/usr/bin/env bash
# Call 13f, the session's closing table (a05ca17's code: the elimination's reciprocals
# predicted off its chain, the resident step at 4 rows ahead): the GPU tests of gpu-fine,
# the resident step and the cell group, then final_table (bench/gpu_call_env.sh): busyring
# 200 ms, the resident step at 1,024 / 8,192 / 32,768 cells, streaming gpu-fine at
# 8,192 / 32,768, gpu-cell at 32,768, and Arbor 0.12's GPU busyring (.arbor-gpu) beside
# them. Pack: GPU_PACK_BINS="arbolito gpu_tests" bash bench/gpu_pack.sh build-gpu; carry
# .gpu_deps and .arbor-gpu. Log: $OUT/final13.log.
set -u
source bench/gpu_call_env.sh final13
run_tests 'Gpu*Fine*:GpuResident*:GpuCellGroup.*' 'identical|mixed sizes gpu-fine step=resident:'
final_table
echo "== done in $SECONDS s" >> $L
cat $L
