#!/usr/bin/env bash
# GPU solvers (issue 4) in one call: build for sm_90, run the GPU tests, the batched
# Thomas benchmark and the gpu-cell solver benchmark; full logs under $OUT (or
# build-gpu-check/logs), the short tables last.
#
# Build: the project's CMake (targets gpu_tests, gpu_solver_bench, thomas_bench) where its
# dependencies are installed; otherwise plain nvcc/g++ commands that need only the CUDA
# toolkit, the repository and the header-only libraries in $GPU_DEPS (default .gpu_deps:
# include/{Eigen,spdlog,fmt} and googletest/{include,src}, copied from a machine that
# has them; .git/info/exclude ignores the folder, the device call carries it).
#
# Environment: GPU_CHECK_BUILD=auto|cmake|nvcc, SOLVER_BENCH_ARGS, THOMAS_BENCH_ARGS,
# SOLVER_TIMEOUT (s), GPU_CHECK_SKIP=tests,thomas,solver (any of them), GPU_CHECK_NCU=1
# (also profile the kernels of one batch with Nsight Compute: ncu.txt).
# Files under the log folder (at most 8 come back from a device call): build.log
# (environment + build), gpu_tests.log, thomas_bench.log, gpu_solver_bench.log,
# gpu_solver_bench.tsv, summary.txt, ncu.txt.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
B=$ROOT/build-gpu-check
LOG=${OUT:-$B/logs}
DEPS=${GPU_DEPS:-$ROOT/.gpu_deps}
MODE=${GPU_CHECK_BUILD:-auto}
SKIP=${GPU_CHECK_SKIP:-}
JOBS=$(nproc 2>/dev/null || echo 8); [ "$JOBS" -gt 16 ] && JOBS=16
mkdir -p "$B" "$LOG"
export ARBOLITO_SOURCE_DIR=$ROOT
NVCC_BIN=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
export LD_LIBRARY_PATH=$(dirname "$(dirname "$NVCC_BIN")")/lib64:${LD_LIBRARY_PATH:-}
rm -f "$B/thomas_summary.txt" "$B/gpu_solver_summary.txt"
t0=$(date +%s)
stamp() { echo "[gpu_check +$(( $(date +%s) - t0 ))s] $*"; }

{
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"; echo "git: $(git rev-parse --short HEAD 2>/dev/null) (+ working tree)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv 2>&1
  nvcc --version | tail -2; g++ --version | head -1; cmake --version 2>&1 | head -1; echo "cores: $(nproc)"
  for p in eigen3 spdlog fmt gtest hdf5 hdf5/serial nlohmann CLI; do [ -e /usr/include/$p ] && echo "have /usr/include/$p" || echo "no /usr/include/$p"; done
  ldconfig -p 2>/dev/null | grep -E 'libhdf5|libgtest|libspdlog|libgomp|libcusparse' | awk '{print $1}' | sort -u | tr '\n' ' '; echo
  ls "${CUDA_HOME:-/usr/local/cuda}"/lib64 2>/dev/null | grep -E '^libcusparse|^libcudart' | tr '\n' ' '; echo
} > "$LOG/build.log" 2>&1
stamp "environment: $(sed -n 4p "$LOG/build.log")"

build_cmake() {
  cmake -S "$ROOT" -B "$B/cmake" -DCMAKE_CUDA_ARCHITECTURES=90 -DARBOLITO_MPI=OFF -DCMAKE_BUILD_TYPE=Release \
    >> "$LOG/build.log" 2>&1 || return 1
  make -C "$B/cmake" -j"$JOBS" gpu_tests gpu_solver_bench thomas_bench >> "$LOG/build.log" 2>&1 || return 2
  BIN_TESTS=$B/cmake/tests/gpu_tests; BIN_SOLVER=$B/cmake/bench/gpu_solver_bench; BIN_THOMAS=$B/cmake/bench/thomas_bench
}

build_nvcc() {
  local O=$B/nvcc; mkdir -p "$O"
  local INC="-I$ROOT -I$DEPS/include -I$DEPS/googletest/include"
  local DEF="-DARBOLITO_SOURCE_DIR='\"$ROOT\"' -DFMT_HEADER_ONLY"  # quoted for eval
  [ -f "$ROOT/io/swc.cpp" ] && DEF="$DEF -DARBOLITO_WITH_SWC"
  local NV="nvcc -std=c++17 -O3 -arch=sm_90 -lineinfo $INC $DEF"
  local CX="g++ -std=c++17 -O3 -march=x86-64-v2 $INC $DEF"
  local pids=() cmds=(
    "$NV -c solvers/gpu/hines_gpu_cell.cu -o $O/hines_gpu_cell.o"
    "$NV -c solvers/gpu/thomas_batch.cu -o $O/thomas_batch.o"
    "$NV -c tests/unit/test_gpu_solvers.cu -o $O/test_gpu_solvers.o"
    "$NV -Xcompiler -fopenmp -c bench/gpu_solver_bench.cu -o $O/gpu_solver_bench.o"
    "$NV -c bench/thomas_bench.cu -o $O/thomas_bench.o"
    "$CX -c solvers/gpu_cell_layout.cpp -o $O/gpu_cell_layout.o"
    "$CX -c solvers/layout.cpp -o $O/layout.o"
    "$CX -c tests/unit/test_gpu_cell_layout.cpp -o $O/test_gpu_cell_layout.o"
    "$CX -I$DEPS/googletest -c $DEPS/googletest/src/gtest-all.cc -o $O/gtest-all.o"
    "$CX -c $DEPS/googletest/src/gtest_main.cc -o $O/gtest_main.o"
  )
  local SWC_OBJS=""
  if [ -f "$ROOT/io/swc.cpp" ]; then
    cmds+=("$CX -c engine/morphology.cpp -o $O/morphology.o" "$CX -c engine/discretization.cpp -o $O/discretization.o"
           "$CX -c io/swc.cpp -o $O/swc.o")
    SWC_OBJS="$O/morphology.o $O/discretization.o $O/swc.o"
  fi
  for c in "${cmds[@]}"; do (echo "+ $c"; eval "$c") >> "$LOG/build.log" 2>&1 & pids+=($!); done
  local ok=0; for p in "${pids[@]}"; do wait "$p" || ok=1; done
  [ $ok = 0 ] || return 2
  local CORE="$O/hines_gpu_cell.o $O/thomas_batch.o $O/gpu_cell_layout.o $O/layout.o $SWC_OBJS"
  (set -x
   nvcc -arch=sm_90 -o "$O/gpu_tests" $O/test_gpu_solvers.o $O/test_gpu_cell_layout.o $CORE $O/gtest-all.o $O/gtest_main.o -lpthread &&
   nvcc -arch=sm_90 -Xcompiler -fopenmp -o "$O/gpu_solver_bench" $O/gpu_solver_bench.o $CORE -lgomp &&
   nvcc -arch=sm_90 -o "$O/thomas_bench" $O/thomas_bench.o $CORE -lcusparse) >> "$LOG/build.log" 2>&1 || return 2
  BIN_TESTS=$O/gpu_tests; BIN_SOLVER=$O/gpu_solver_bench; BIN_THOMAS=$O/thomas_bench
}

built=""
if [ "$MODE" != nvcc ]; then
  if build_cmake; then built=cmake; else
    rc=$?; stamp "cmake build not possible (step $rc; build.log): $(grep -m1 -E 'Could not find|Error' "$LOG/build.log")"
    [ "$MODE" = cmake ] && { tail -30 "$LOG/build.log"; exit 1; }
  fi
fi
if [ -z "$built" ]; then
  if build_nvcc; then built=nvcc
  else
    stamp "nvcc build FAILED"; grep -B2 -A8 -E "error|Error" "$LOG/build.log" | head -40
    # Last resort: binaries built on another x86-64 machine with the same CUDA, if carried.
    [ -x "$DEPS/prebuilt/gpu_tests" ] || exit 1
    BIN_TESTS=$DEPS/prebuilt/gpu_tests; BIN_SOLVER=$DEPS/prebuilt/gpu_solver_bench; BIN_THOMAS=$DEPS/prebuilt/thomas_bench
    built="prebuilt binaries ($DEPS/prebuilt)"
  fi
fi
stamp "built with $built"

status=0
if [[ ",$SKIP," != *",tests,"* ]]; then
  "$BIN_TESTS" --gtest_color=no > "$LOG/gpu_tests.log" 2>&1; trc=$?
  [ $trc = 0 ] || status=1
  stamp "gpu_tests exit $trc: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ test' "$LOG/gpu_tests.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]|Failure|error' "$LOG/gpu_tests.log" | head -20
fi
if [[ ",$SKIP," != *",thomas,"* ]]; then
  timeout 240 "$BIN_THOMAS" ${THOMAS_BENCH_ARGS:-} --summary "$B/thomas_summary.txt" > "$LOG/thomas_bench.log" 2>&1 || { status=1; stamp "thomas_bench failed"; tail -5 "$LOG/thomas_bench.log"; }
  stamp "thomas_bench done"
fi
if [[ ",$SKIP," != *",solver,"* ]]; then
  timeout ${SOLVER_TIMEOUT:-330} "$BIN_SOLVER" ${SOLVER_BENCH_ARGS:-} --tsv "$LOG/gpu_solver_bench.tsv" --summary "$B/gpu_solver_summary.txt" \
    > "$LOG/gpu_solver_bench.log" 2>&1 || { status=1; stamp "gpu_solver_bench failed"; tail -5 "$LOG/gpu_solver_bench.log"; }
  stamp "gpu_solver_bench done"
fi
if [ -n "${GPU_CHECK_NCU:-}" ] && command -v ncu > /dev/null; then
  # Bytes each kernel really moves through DRAM, its duration and occupancy, for the
  # issue's target batch (256,000 medium cells) and the largest Thomas batch.
  M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct
  { timeout 100 ncu --clock-control none --cache-control none -k regex:'cell_solve' --metrics $M --csv \
      "$BIN_SOLVER" --sizes 256000 --classes ${NCU_CLASS:-medium-real} --reps 1 --no-cpu
    timeout 50 ncu --clock-control none --cache-control none -k regex:'thomas_kernel' --metrics $M --csv \
      "$BIN_THOMAS" --n 512 --nsys 256000 --reps 1; } > "$LOG/ncu.txt" 2>&1
  stamp "ncu done ($(grep -c '"gpu__time_duration.sum"' "$LOG/ncu.txt") kernel records)"
fi
echo
rm -f "$LOG/summary.txt"
for f in thomas_summary.txt gpu_solver_summary.txt; do [ -f "$B/$f" ] && { cat "$B/$f"; echo; } >> "$LOG/summary.txt"; done
[ -f "$LOG/summary.txt" ] && cat "$LOG/summary.txt"
stamp "total; status $status"
exit $status
