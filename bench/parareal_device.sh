#!/usr/bin/env bash
# Issue 16 on the GPU machine (bench/RESULTS.md, "Parareal (issue 16)"): PararealGpu tests,
# then the parareal study on the GPU (gpu-fine): G on the GPU for the small cells, G on the
# host (coarse-solver=cpu) for all, under time budgets; results under $OUT. Lives in a
# pack folder beside prebuilt/arbolito, prebuilt/gpu_tests, lib/ (their libraries), models/
# (bench/models/parareal_*.json), src/tests/data/parareal and parareal_study.sh; run as
#   export OUT; bash PACK/parareal_device.sh
# The session's first call ran, instead of the two studies below, the GPU study with G on
# the GPU for every size ("16 64" "10", budget 70 s) and the host study
#   parareal_study.sh $B $OUT/cpu16.tsv 16_cores omp 16 "16 32" "10" 40
set -u
D=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$D/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PARAREAL_MODELS=$D/models
B=$D/prebuilt/arbolito
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; echo "cores: $(nproc)";
  lscpu | grep -m1 'Model name'; echo "binaries: $(cat $D/prebuilt/STAMP)"; } > $OUT/device.txt 2>&1
cat $OUT/device.txt
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_')
ARBOLITO_SOURCE_DIR=$D/src timeout 25 $D/prebuilt/gpu_tests --gtest_filter='PararealGpu.*' > $OUT/gpu_tests.log 2>&1
echo "gpu_tests rc=$?"; grep -E "OK|FAIL|PASSED|SKIPPED|Expected|Which|exception" $OUT/gpu_tests.log | head -20
t0=$SECONDS
timeout 25 bash $D/parareal_study.sh $B $OUT/gpu_small.tsv "$gpu" gpu-fine:timing=off 1 "16 64" "10" 15 2000 > $OUT/gpu_small.log 2>&1
echo "gpu small rc=$? in $((SECONDS - t0)) s"; cut -c1-200 $OUT/gpu_small.log
t0=$SECONDS
timeout 95 bash $D/parareal_study.sh $B $OUT/gpu_gcpu.tsv "$gpu" gpu-fine:timing=off 1 "16 64" "10 20" 75 20000 cpu > $OUT/gpu_gcpu.log 2>&1
echo "gpu G-on-cpu rc=$? in $((SECONDS - t0)) s"; cut -c1-200 $OUT/gpu_gcpu.log
