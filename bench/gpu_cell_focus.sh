#!/usr/bin/env bash
# Focused device call after a change to the gpu-cell kernels (about 3 minutes), with the
# binaries of bench/gpu_pack.sh: whole busyring runs per solve kernel, the solver benchmark
# at 256,000 cells, optionally batched Thomas and an Nsight Compute source-level profile of
# the solve inside a busyring step. One log, $OUT/focus.log (+ ncu_source.csv.gz, sass.txt.gz).
# Environment: FOCUS_TESTS=1 (gpu_tests first), FOCUS_CELLS ("1024 8192"), FOCUS_KERNELS
# ("pipelined2 rowparent4 rowparent8"), FOCUS_TFINAL (20 ms), FOCUS_SOLVER (1; empty: no
# solver benchmark), FOCUS_SIZES (256000), FOCUS_CLASSES (all), FOCUS_THOMAS=1,
# FOCUS_BIG=1 (32,768 cells for 200 ms, default kernel), FOCUS_NCU=1 (NCU_CELLS 1024,
# NCU_SOLVER the solver spec, default gpu-cell, e.g. "gpu-cell:kernel=pipelined2" (docs/solvers.md);
# NCU_ARGS extra arbolito arguments).
# Device call: bash bench/gpu_cell_focus.sh, carrying .gpu_deps.
set -uo pipefail
D=$PWD/.gpu_deps; P=$D/prebuilt
export LD_LIBRARY_PATH=$D/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
L=${OUT:-/tmp}/focus.log; : > "$L"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader >> "$L"
T=$(mktemp -d)
source bench/busyring_run.sh  # br CELLS TFINAL ARGS...
[ -n "${FOCUS_TESTS:-}" ] && { echo "== gpu_tests" >> "$L"; timeout 200 $P/gpu_tests 2>&1 | grep -E '^\[  (PASSED|FAILED|SKIPPED) |FAILED|Failure|error' >> "$L"; }
for c in ${FOCUS_CELLS:-1024 8192}; do
  for k in ${FOCUS_KERNELS:-pipelined2 rowparent4 rowparent8}; do
    br $c ${FOCUS_TFINAL:-20} --solver gpu-cell:layout=block-interleaved:block=32:kernel=$k
  done
done
[ -n "${FOCUS_SOLVER:-1}" ] && { echo "== gpu_solver_bench" >> "$L"; timeout 200 $P/gpu_solver_bench --sizes ${FOCUS_SIZES:-256000} ${FOCUS_CLASSES:+--classes $FOCUS_CLASSES} --no-cpu --reps 10 --budget-s 90 --summary $T/s.txt >> "$L" 2>&1; cat $T/s.txt >> "$L"; }
[ -n "${FOCUS_THOMAS:-}" ] && { echo "== thomas" >> "$L"; timeout 120 $P/thomas_bench --n 64,512 --nsys 2560,25600,256000 --reps 10 --summary $T/t.txt >> "$L" 2>&1; cat $T/t.txt >> "$L"; }
[ -n "${FOCUS_BIG:-}" ] && br 32768 200 --solver gpu-cell
if [ -n "${FOCUS_NCU:-}" ]; then  # where the solve waits, per SASS line, inside a busyring step
  sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": ${NCU_CELLS:-1024}/" examples/busyring.json > $T/n.json
  timeout 240 ncu --clock-control none -k regex:cell_solve --launch-skip 20 --launch-count 1 --section SourceCounters \
    --section WarpStateStats --section LaunchStats --section Occupancy -o $T/rep $P/arbolito run $T/n.json --tfinal 2 --spikes-only \
    --solver ${NCU_SOLVER:-gpu-cell} ${NCU_ARGS:-} -o $T/n.h5 >> "$L" 2>&1
  ncu --import $T/rep.ncu-rep --page details >> "$L" 2>&1
  ncu --import $T/rep.ncu-rep --page source --csv --print-source sass 2>&1 | gzip > ${OUT:-/tmp}/ncu_source.csv.gz
  cuobjdump -sass $P/arbolito 2>/dev/null | awk '/Function : .*cell_solve_pipelined/{p=1} /Function :/ && !/cell_solve_pipelined/{p=0} p' | gzip > ${OUT:-/tmp}/sass.txt.gz
fi
echo "== done" >> "$L"; tail -40 "$L"
