#!/usr/bin/env bash
# The GPU backend (issue 4) in one call: build for sm_90 (or take prebuilt binaries), run
# the GPU tests, compute-sanitizer (memcheck, racecheck) on them, the batched Thomas
# benchmark, the gpu-cell solver benchmark, the GPU time-step benchmark (copy bandwidth,
# bytes per CV, point-current sums) and whole busyring runs (bench/gpu_busyring.sh); the
# short tables last. Logs under build-gpu-check/logs; with $OUT set (a device call) they
# are also packed into $OUT/logs.tgz after every step, with $OUT/summary.txt beside it.
#
# Build: binaries packed by bench/gpu_pack.sh into $GPU_DEPS/prebuilt (with the shared
# libraries the GPU machine lacks in $GPU_DEPS/lib) when present: the only way to get
# arbolito and gpu_step_bench, which need HDF5, spdlog and fmt. Otherwise the project's
# CMake where its dependencies are installed, or plain nvcc/g++ commands for the solver
# tests and benchmarks that need only the CUDA toolkit, the repository and the
# header-only libraries in $GPU_DEPS (default .gpu_deps: include/{Eigen,spdlog,fmt} and
# googletest/{include,src}; .git/info/exclude ignores the folder, the device call carries it).
#
# Everything takes about 11 minutes on an H100; the device tool allows 10 per call, so
# there it runs as two or three calls (measured, prebuilt binaries):
#   GPU_CHECK_SKIP=busyring,step,thomas bash bench/gpu_check.sh   (tests, sanitizers, gpu-cell
#       solver benchmark: 7.7 min)
#   GPU_CHECK_SKIP=tests,sanitize,thomas,solver bash bench/gpu_check.sh   (time step, busyring: 2 min)
#   GPU_CHECK_SKIP=tests,sanitize,solver,step,busyring bash bench/gpu_check.sh   (batched Thomas)
# bench/gpu_cell_focus.sh is the short call after a change to the gpu-cell kernels.
#
# Environment: GPU_CHECK_BUILD=auto|prebuilt|cmake|nvcc, SOLVER_BENCH_ARGS,
# THOMAS_BENCH_ARGS, STEP_BENCH_ARGS, SOLVER_TIMEOUT (s), GPU_CHECK_SKIP=tests,sanitize,
# thomas,solver,step,busyring (any of them), GPU_CHECK_NCU=1 (also profile the kernels of
# one batch with Nsight Compute: ncu.txt; =busyring: the solve inside a busyring step
# instead, ncu_busyring.txt; =1,busyring: both), and gpu_busyring.sh's variables.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
B=$ROOT/build-gpu-check
LOG=$B/logs
DEPS=${GPU_DEPS:-$ROOT/.gpu_deps}
MODE=${GPU_CHECK_BUILD:-auto}
SKIP=${GPU_CHECK_SKIP:-}
JOBS=$(nproc 2>/dev/null || echo 8); [ "$JOBS" -gt 16 ] && JOBS=16
mkdir -p "$B" "$LOG"
export ARBOLITO_SOURCE_DIR=$ROOT
NVCC_BIN=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
export LD_LIBRARY_PATH=$(dirname "$(dirname "$NVCC_BIN")")/lib64:${LD_LIBRARY_PATH:-}
rm -f "$B"/{tests,thomas,gpu_solver,step,busyring}_summary.txt  # no stale tables in this run's summary
t0=$(date +%s)
# Packs the logs for a device call (at most 8 files come back): after every step, so a
# run stopped at its time limit still returns what it did.
pack() { [ -n "${OUT:-}" ] && tar czf "$OUT/logs.tgz" -C "$LOG" . 2>/dev/null; [ -n "${OUT:-}" ] && [ -f "$LOG/summary.txt" ] && cp "$LOG/summary.txt" "$OUT/"; true; }
stamp() { echo "[gpu_check +$(( $(date +%s) - t0 ))s] $*"; echo "[gpu_check +$(( $(date +%s) - t0 ))s] $*" >> "$LOG/steps.log"; pack; }
rm -f "$LOG"/*
# Prebuilt binaries load the libraries packed beside them; nothing else sees those.
CUDA_LIB=$(dirname "$(dirname "$NVCC_BIN")")/lib64
LIBS=(env "LD_LIBRARY_PATH=$DEPS/lib:$CUDA_LIB:${LD_LIBRARY_PATH:-}")  # prefix: "${LIBS[@]}" cmd args

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
  make -C "$B/cmake" -j"$JOBS" gpu_tests gpu_solver_bench thomas_bench gpu_step_bench arbolito >> "$LOG/build.log" 2>&1 || return 2
  BIN_TESTS=$B/cmake/tests/gpu_tests; BIN_SOLVER=$B/cmake/bench/gpu_solver_bench; BIN_THOMAS=$B/cmake/bench/thomas_bench
  BIN_ARB=$B/cmake/app/arbolito; BIN_STEP=$B/cmake/bench/gpu_step_bench
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
    "$NV -c solvers/gpu/hines_gpu_branch.cu -o $O/hines_gpu_branch.o"
    "$CX -c solvers/branch_layout.cpp -o $O/branch_layout.o"
    "$CX -c solvers/branch_tree.cpp -o $O/branch_tree.o"
    "$NV -c tests/unit/test_gpu_solvers.cu -o $O/test_gpu_solvers.o"
    "$NV -c tests/unit/test_gpu_cell_sweeps.cu -o $O/test_gpu_cell_sweeps.o"
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
  local CORE="$O/hines_gpu_cell.o $O/thomas_batch.o $O/hines_gpu_branch.o $O/branch_layout.o $O/branch_tree.o $O/gpu_cell_layout.o $O/layout.o $SWC_OBJS"
  (set -x
   nvcc -arch=sm_90 -o "$O/gpu_tests" $O/test_gpu_solvers.o $O/test_gpu_cell_sweeps.o $O/test_gpu_cell_layout.o $CORE $O/gtest-all.o $O/gtest_main.o -lpthread &&
   nvcc -arch=sm_90 -Xcompiler -fopenmp -o "$O/gpu_solver_bench" $O/gpu_solver_bench.o $CORE -lgomp &&
   nvcc -arch=sm_90 -o "$O/thomas_bench" $O/thomas_bench.o $CORE -lcusparse) >> "$LOG/build.log" 2>&1 || return 2
  BIN_TESTS=$O/gpu_tests; BIN_SOLVER=$O/gpu_solver_bench; BIN_THOMAS=$O/thomas_bench
}

BIN_ARB=""; BIN_STEP=""
built=""
if [ "$MODE" = prebuilt ] || { [ "$MODE" = auto ] && [ -x "$DEPS/prebuilt/arbolito" ]; }; then
  P=$DEPS/prebuilt
  BIN_TESTS=$P/gpu_tests; BIN_SOLVER=$P/gpu_solver_bench; BIN_THOMAS=$P/thomas_bench; BIN_ARB=$P/arbolito; BIN_STEP=$P/gpu_step_bench
  built="prebuilt binaries ($(head -2 "$P/STAMP" 2>/dev/null | tr '\n' ' '))"
  cat "$P/STAMP" >> "$LOG/build.log" 2>/dev/null
fi
if [ -z "$built" ] && [ "$MODE" != nvcc ] && [ "$MODE" != prebuilt ]; then
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
  "${LIBS[@]}" "$BIN_TESTS" --gtest_color=no > "$LOG/gpu_tests.log" 2>&1; trc=$?
  [ $trc = 0 ] || status=1
  stamp "gpu_tests exit $trc: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ test' "$LOG/gpu_tests.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]|Failure|error' "$LOG/gpu_tests.log" | head -20
  { echo "gpu_tests: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$LOG/gpu_tests.log" | tr '\n' ' ')"
    grep -E '^\[ info     \]' "$LOG/gpu_tests.log"; echo; } > "$B/tests_summary.txt"
fi
if [[ ",$SKIP," != *",sanitize,"* ]] && command -v compute-sanitizer > /dev/null; then
  # The cell-group tests and the solver kernels' own, under memcheck and racecheck (the
  # kernels share no memory between threads of a block except the sort's and Thomas's
  # shared rows; racecheck looks at those). Whole-run tests with small models only.
  for tool in memcheck racecheck; do
    F=${SANITIZE_FILTER:-'GpuCellGroup.SanitizerSmoke:GpuCell.RandomTrees*:GpuBranch.*:ThomasBatch.AgainstCpu'}
    [ $tool = memcheck ] && F=${SANITIZE_FILTER:-'GpuCellGroup.SanitizerSmoke:GpuCellGroup.ManySynapsesOnOneCv:GpuCellGroup.PhaseTimes:GpuCell.RandomTrees*:GpuBranch.*:ThomasBatch.AgainstCpu'}
    extra=""; [ $tool = memcheck ] && extra="--leak-check full"
    timeout ${SANITIZE_TIMEOUT:-200} "${LIBS[@]}" compute-sanitizer --tool $tool $extra --error-exitcode 3 \
      "$BIN_TESTS" --gtest_color=no --gtest_filter="$F" > "$LOG/sanitize_$tool.log" 2>&1; src=$?
    [ $src = 0 ] || status=1
    line="compute-sanitizer $tool: exit $src, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY' "$LOG/sanitize_$tool.log" | tr '\n' ' ') $(grep -E '^\[  (PASSED|FAILED) +\]' "$LOG/sanitize_$tool.log" | tr '\n' ' ')"
    stamp "$line"; echo "$line" >> "$B/tests_summary.txt"
  done
fi
if [[ ",$SKIP," != *",thomas,"* ]]; then
  timeout 240 "${LIBS[@]}" "$BIN_THOMAS" ${THOMAS_BENCH_ARGS:-} --summary "$B/thomas_summary.txt" > "$LOG/thomas_bench.log" 2>&1 || { status=1; stamp "thomas_bench failed"; tail -5 "$LOG/thomas_bench.log"; }
  stamp "thomas_bench done"
fi
if [[ ",$SKIP," != *",solver,"* ]]; then
  timeout ${SOLVER_TIMEOUT:-330} "${LIBS[@]}" "$BIN_SOLVER" ${SOLVER_BENCH_ARGS:-} --tsv "$LOG/gpu_solver_bench.tsv" --summary "$B/gpu_solver_summary.txt" \
    > "$LOG/gpu_solver_bench.log" 2>&1 || { status=1; stamp "gpu_solver_bench failed"; tail -5 "$LOG/gpu_solver_bench.log"; }
  stamp "gpu_solver_bench done"
fi
if [[ ",$SKIP," != *",step,"* ]] && [ -n "$BIN_STEP" ]; then
  timeout ${STEP_TIMEOUT:-200} "${LIBS[@]}" "$BIN_STEP" ${STEP_BENCH_ARGS:-} --summary "$B/step_summary.txt" \
    > "$LOG/gpu_step_bench.log" 2>&1 || { status=1; stamp "gpu_step_bench failed"; tail -5 "$LOG/gpu_step_bench.log"; }
  stamp "gpu_step_bench done"
fi
if [[ ",$SKIP," != *",busyring,"* ]] && [ -n "$BIN_ARB" ]; then
  ARBOLITO=$BIN_ARB ARBOLITO_LIBS=$DEPS/lib:$CUDA_LIB LOG=$LOG STEP_SUMMARY=$B/step_summary.txt \
    bash "$ROOT/bench/gpu_busyring.sh" > "$LOG/gpu_busyring.log" 2>&1 || { status=1; stamp "gpu_busyring failed"; }
  stamp "busyring runs done"
  cp "$LOG/busyring_table.txt" "$B/busyring_summary.txt" 2>/dev/null
fi
if [[ ",${GPU_CHECK_NCU:-}," == *",busyring,"* ]] && [ -n "$BIN_ARB" ] && command -v ncu > /dev/null; then
  # What limits the gpu-cell solve inside a busyring step (NCU_BUSYRING_CELLS cells, 1,024
  # by default; one thread per cell): one solve launch, with occupancy, warp stall
  # reasons and memory throughput.
  sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": ${NCU_BUSYRING_CELLS:-1024}/" examples/busyring.json > "$B/busyring_ncu.json"
  timeout 240 "${LIBS[@]}" ncu --clock-control none -k regex:'cell_solve' --launch-skip 40 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis "$BIN_ARB" run "$B/busyring_ncu.json" --solver gpu-cell --tfinal 2 --spikes-only \
    -o "$B/ncu_busyring.h5" > "$LOG/ncu_busyring.txt" 2>&1
  stamp "ncu busyring solve done"
fi
if [ -n "${GPU_CHECK_NCU:-}" ] && [[ ",${GPU_CHECK_NCU}," != ",busyring," ]] && command -v ncu > /dev/null; then
  # Bytes each kernel really moves through DRAM, its duration and occupancy, for the
  # issue's target batch (256,000 medium cells) and the largest Thomas batch.
  M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct
  { timeout 100 "${LIBS[@]}" ncu --clock-control none --cache-control none -k regex:'cell_solve' --metrics $M --csv \
      "$BIN_SOLVER" --sizes 256000 --classes ${NCU_CLASS:-medium-real} --reps 1 --no-cpu
    timeout 50 "${LIBS[@]}" ncu --clock-control none --cache-control none -k regex:'thomas_kernel' --metrics $M --csv \
      "$BIN_THOMAS" --n 512 --nsys 256000 --reps 1; } > "$LOG/ncu.txt" 2>&1
  stamp "ncu done ($(grep -c '"gpu__time_duration.sum"' "$LOG/ncu.txt") kernel records)"
fi
echo
rm -f "$LOG/summary.txt"
for f in tests_summary.txt thomas_summary.txt gpu_solver_summary.txt step_summary.txt busyring_summary.txt; do [ -f "$B/$f" ] && { cat "$B/$f"; echo; } >> "$LOG/summary.txt"; done
[ -f "$LOG/summary.txt" ] && cat "$LOG/summary.txt"
stamp "total; status $status"
pack
exit $status
