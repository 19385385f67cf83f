#!/usr/bin/env bash
# Parareal with G on a coarser discretisation (coarse-cvs, docs/parareal.md; bench/RESULTS.md,
# "Parareal (issue 16)", "Coarse discretisation") on the GPU machine, in at most 82 s of
# runs (each part under `timeout`; a part's budget stops new runs early):
#   0. gpu_tests PararealGpu.CoarseCvsOnTheHost (beside the binary, if there);
#   1. gpu-fine F, G on one host core (coarse-solver=cpu): the 10,004-CV cable, K=64, C=10,
#      coarse-cvs 1 (G on the fine CVs: the study's best, 2.25x) and 10; then K=128 with
#      coarse-cvs 10 (9 iterations on 2 cores; 128 slices still fit one block per SM);
#   2. the same for the L5 cell of 15,084 CVs, K=16, coarse-cvs 10 and 1;
#   3. the host's cores (omp, --threads = nproc, G on cpu): the cable at K=16 and 32
#      (coarse-cvs 1 and 10), the L5 cell at K=16 (coarse-cvs 10 and 1).
# (The L5 cell runs coarse-cvs=10 first: should its part's time run out, the new variant
# has run; its coarse-cvs=1 figures are in bench/RESULTS.md from the earlier study.)
# Every row is one `arbolito run ... --time-parallel parareal:...,verify=on`: the baseline is
# the same solver's sequential run in the same process (bench/parareal_study.sh).
# Writes $OUT/device.txt, $OUT/gpu_tests.log, $OUT/coarse_gpu.tsv, $OUT/coarse_host.tsv and
# a log per part.
# Run from the repository root with binaries built from a tree that has coarse-cvs:
#   export OUT LD_LIBRARY_PATH=$PWD/.gpu_deps/lib:/usr/local/cuda/lib64 ARBOLITO_SOURCE_DIR=$PWD
#   bash bench/parareal_coarse_device.sh [ARBOLITO]      (default .gpu_deps/prebuilt/arbolito)
set -u
R=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$R/.gpu_deps/prebuilt/arbolito}
S=$R/bench/parareal_study.sh
export PARAREAL_MODELS=$R/bench/models
: "${OUT:?set OUT to the folder for the results}"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; echo "cores: $(nproc)";
  lscpu | grep -m1 'Model name'; echo "binary: $B"; "$B" --version; cat "$(dirname "$B")/STAMP" 2>/dev/null; } > "$OUT/device.txt" 2>&1
cat "$OUT/device.txt"
if ! "$B" run --help 2>/dev/null | grep -q coarse-cvs; then
  echo "$B has no parareal coarse-cvs: pack binaries built from branch parareal-coarse"; exit 1
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_')
cores=$(nproc)
part() {  # label, timeout s, study arguments...
  local label=$1 limit=$2; shift 2
  local t0=$SECONDS
  timeout "$limit" bash "$S" "$B" "$@" > "$OUT/$label.log" 2>&1
  echo "$label: rc=$? in $((SECONDS - t0)) s"; cut -c1-220 "$OUT/$label.log"
}
T=$(dirname "$B")/gpu_tests
if [[ -x "$T" ]]; then
  ARBOLITO_SOURCE_DIR=${ARBOLITO_SOURCE_DIR:-$R} timeout 8 "$T" --gtest_filter='PararealGpu.CoarseCvsOnTheHost' > "$OUT/gpu_tests.log" 2>&1
  echo "gpu_tests rc=$?"; grep -E "OK|FAIL|PASSED|SKIPPED|Expected|Which|exception" "$OUT/gpu_tests.log" | head -8
fi
# study arguments: OUT.tsv LABEL SOLVER THREADS "K..." "C..." BUDGET_S MAX_CV COARSE_SOLVER "F..." MIN_CV
part gpu_cable 22 "$OUT/coarse_gpu.tsv" "$gpu" gpu-fine:timing=off 1 "64" "10" 12 11000 cpu "1 10" 10000
part gpu_cable128 12 "$OUT/coarse_gpu.tsv" "$gpu" gpu-fine:timing=off 1 "128" "10" 4 11000 cpu "10" 10000
part gpu_cell 14 "$OUT/coarse_gpu.tsv" "$gpu" gpu-fine:timing=off 1 "16" "10" 8 16000 cpu "10 1" 15000
part host_cable 12 "$OUT/coarse_host.tsv" "host_${cores}_cores" omp "$cores" "16 32" "10" 8 11000 cpu "1 10" 10000
part host_cell 14 "$OUT/coarse_host.tsv" "host_${cores}_cores" omp "$cores" "16" "10" 7 16000 cpu "10 1" 15000
