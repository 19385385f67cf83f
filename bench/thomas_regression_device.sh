#!/usr/bin/env bash
# Issue 15's two open findings on the GPU machine, about 40 s on an H100: the batched
# Thomas tests, then bench/thomas_regression_bench (the double kernel before issue 15
# against thomas_batch now, medians of 21 runs interleaved; float tunings against double
# and cuSPARSE where float lost). Run from the repository root with the binaries packed
# by bench/gpu_pack.sh into .gpu_deps/prebuilt (gpu_tests, thomas_regression_bench):
#   OUT=/some/dir bash bench/thomas_regression_device.sh
# Writes $OUT/device.txt, $OUT/thomas_tests.log, $OUT/thomas_regression.{tsv,log}.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
P=${GPU_DEPS:-$ROOT/.gpu_deps}
: "${OUT:?set OUT to the folder for the results}"
export LD_LIBRARY_PATH=$P/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ARBOLITO_SOURCE_DIR=$ROOT
mkdir -p "$OUT"
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
  echo "binaries: $(head -2 "$P/prebuilt/STAMP" 2>/dev/null | tr '\n' ' ')"; } > "$OUT/device.txt" 2>&1
cat "$OUT/device.txt"
t0=$SECONDS
timeout 25 "$P/prebuilt/gpu_tests" --gtest_filter='ThomasBatch.*:ThomasVariants.*' > "$OUT/thomas_tests.log" 2>&1
echo "gpu_tests rc=$? in $((SECONDS - t0)) s"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[       OK|FAILED|Expected|Which is|exception" "$OUT/thomas_tests.log" | head -20
t0=$SECONDS
timeout 40 "$P/prebuilt/thomas_regression_bench" --reps 21 --tsv "$OUT/thomas_regression.tsv" \
  > "$OUT/thomas_regression.log" 2>&1
echo "thomas_regression_bench rc=$? in $((SECONDS - t0)) s"
cut -c1-160 "$OUT/thomas_regression.log"
