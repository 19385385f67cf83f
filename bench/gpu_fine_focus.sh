#!/usr/bin/env bash
# Focused device call for gpu-fine and gpu-branch (issues 11, 12), with the binaries of
# bench/gpu_pack.sh: the GPU tests (all, or FINE_TESTS=pattern), compute-sanitizer
# memcheck and racecheck (on SANITIZE_FILTER, default the gpu-fine solve tests),
# fine_bench (Huber's study and DeepDendrite's anchor), branch_bench (BRANCH_CELLS,
# BRANCH_ARGS: the seed's multi-morphology study), optionally
# whole busyring runs per solver (FINE_BUSYRING="1024 8192"), and Nsight Compute on the
# fine solve (FINE_NCU=1; NCU_KERNEL, NCU_SOLVER, NCU_SECTIONS, NCU_METRICS, NCU_SKIP, NCU_TFINAL). One log, $OUT/fine.log, and fine_bench's tables beside it.
# Environment: FINE_TESTS (gtest filter, default *), FINE_SANITIZE (1), FINE_CELLS
# (fine_bench --cells), FINE_BENCH_ARGS, FINE_BUSYRING, FINE_TFINAL (200), FINE_SOLVERS
# ("gpu-fine gpu-cell"), FINE_OMP=1 (omp on every core, 1,024 cells, 50 ms), FINE_ARBOR
# ("1024 8192": Arbor's GPU busyring from .arbor-gpu, ../shared/peers), FINE_NCU.
set -uo pipefail
D=$PWD/.gpu_deps; P=$D/prebuilt
export LD_LIBRARY_PATH=$D/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ARBOLITO_SOURCE_DIR=$PWD
O=${OUT:-/tmp}; L=$O/fine.log; : > "$L"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader >> "$L"
cat $P/STAMP >> "$L" 2>/dev/null
T=$(mktemp -d)
if [ -n "${FINE_TESTS-*}" ]; then
  echo "== gpu_tests ${FINE_TESTS:-*}" >> "$L"
  timeout 300 $P/gpu_tests --gtest_filter="${FINE_TESTS:-*}" 2>&1 | grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[       OK|FAILED|Failure|error|Expected|Which is|actual' | head -80 >> "$L"
fi
if [ "${FINE_SANITIZE:-1}" = 1 ]; then
  for tool in memcheck racecheck; do
    F=${SANITIZE_FILTER:-GpuFine.SameBits*:GpuFine.Mutated*}
    echo "== compute-sanitizer $tool $F" >> "$L"
    timeout 300 compute-sanitizer --tool $tool --leak-check full $P/gpu_tests --gtest_filter="$F" 2>&1 | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY|PASSED|FAILED|Error|hazard' | head -20 >> "$L"
  done
fi
if [ -n "${FINE_CELLS:-}" ]; then
  echo "== fine_bench --cells $FINE_CELLS ${FINE_BENCH_ARGS:-}" >> "$L"
  timeout 400 $P/fine_bench --cells "$FINE_CELLS" ${FINE_BENCH_ARGS:-} --summary $O/fine_summary.txt --tsv $O/fine_bench.tsv >> "$L" 2>&1
fi
if [ -n "${BRANCH_CELLS:-}" ]; then
  echo "== branch_bench --cells $BRANCH_CELLS ${BRANCH_ARGS:-}" >> "$L"
  timeout 500 $P/branch_bench --cells "$BRANCH_CELLS" ${BRANCH_ARGS:-} --summary $O/branch_summary.txt --tsv $O/branch_bench.tsv >> "$L" 2>&1
fi
source bench/busyring_run.sh  # br CELLS TFINAL ARGS...
for c in ${FINE_BUSYRING:-}; do
  for s in ${FINE_SOLVERS:-gpu-fine gpu-cell}; do br $c ${FINE_TFINAL:-200} --solver $s; done
done
[ -n "${FINE_OMP:-}" ] && br 1024 50 --solver omp --threads $(nproc)
if [ -n "${FINE_ARBOR:-}" ] && [ -d .arbor-gpu ]; then  # Arbor 0.12's own busyring, same call (../shared/peers)
  echo "== arbor busyring $FINE_ARBOR" >> "$L"
  OUT=$T/arbor timeout 400 bash .arbor-gpu/run.sh $FINE_ARBOR > $T/arbor.log 2>&1
  grep -iE "cells|model-init|model-run|spikes|cell-count|^ *[0-9]+ +[0-9.]+" $T/arbor.log | tail -40 >> "$L"
  cp $T/arbor.log "$O/arbor.log" 2>/dev/null
fi
if [ -n "${FINE_NCU:-}" ]; then  # NCU_KERNEL (regex, default fine_solve), NCU_SOLVER, NCU_SECTIONS
  sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": ${NCU_CELLS:-1024}/" examples/busyring.json > $T/n.json
  echo "== ncu ${NCU_KERNEL:-fine_solve} cells=${NCU_CELLS:-1024} ${NCU_SOLVER:-gpu-fine}" >> "$L"
  timeout 300 ncu --clock-control none -k regex:${NCU_KERNEL:-fine_solve} --launch-skip ${NCU_SKIP:-20} --launch-count 1 \
    ${NCU_SECTIONS:---section SpeedOfLight --section WarpStateStats --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis} \
    ${NCU_METRICS:+--metrics $NCU_METRICS} \
    $P/arbolito run $T/n.json --tfinal ${NCU_TFINAL:-2} --spikes-only --solver ${NCU_SOLVER:-gpu-fine} -o $T/n.h5 >> "$L" 2>&1
fi
echo "== done" >> "$L"; tail -60 "$L"
