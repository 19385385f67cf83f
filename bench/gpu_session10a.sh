#!/usr/bin/env bash
# First device call of the tenth session: the whole GPU suite (with the event queue's
# pack-ahead test) and memcheck on the new event queue; busyring 8,192 and 1,024 cells ×
# 200 ms on the resident step, the events copied and sorted on their own stream while the
# previous epoch runs (arbolito) against the ninth session's binary (arbolito-prev, commit
# adea418: copy and sort on the group's stream at the epoch's start), interleaved; one run
# with CUDA_MODULE_LOADING=EAGER (how much of the run is the first launches' loading);
# gpu_solver_bench quick (the ninth session's review of its slot check). Log: $OUT/s10a.log.
set -u
O=$OUT; L=$O/s10a.log
export LD_LIBRARY_PATH=$PWD/.gpu_deps/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ARBOLITO_SOURCE_DIR=$PWD
P=$PWD/.gpu_deps/prebuilt
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; echo "cores: $(nproc)"; cat $P/STAMP; } > $L
t0=$SECONDS
timeout 200 $P/gpu_tests > $O/tests.log 2>&1; echo "gpu_tests rc $? in $((SECONDS - t0)) s" >> $L
grep -E '^\[  (PASSED|FAILED)|^\[  FAILED|Failure' $O/tests.log | head -20 >> $L
t0=$SECONDS
timeout 90 compute-sanitizer --tool memcheck $P/gpu_tests --gtest_filter='GpuEventQueue.*:GpuResidentGroup.SanitizerSmoke:GpuCellGroup.PreparedEventsSameBits' 2>&1 | grep -E 'ERROR SUMMARY|PASSED|FAILED' | head -4 >> $L
timeout 60 compute-sanitizer --tool racecheck $P/gpu_tests --gtest_filter='GpuResidentGroup.SanitizerSmoke' 2>&1 | grep -E 'RACECHECK SUMMARY|PASSED|FAILED' | head -4 >> $L
echo "sanitizers in $((SECONDS - t0)) s" >> $L
mkdir -p /tmp/gd/prebuilt && ln -sfn $PWD/.gpu_deps/lib /tmp/gd/lib && cp $P/arbolito-prev /tmp/gd/prebuilt/arbolito
for r in 1 2; do
  bash bench/busyring_table.sh "8192 1024" "gpu-fine:step=resident" 200 $O/table.tsv
  GPU_DEPS=/tmp/gd bash bench/busyring_table.sh "8192 1024" "gpu-fine:step=resident" 200 $O/table_prev.tsv
done
CUDA_MODULE_LOADING=EAGER bash bench/busyring_table.sh "1024" "gpu-fine:step=resident" 200 $O/table_eager.tsv
echo "== new" >> $L; cat $O/table.tsv >> $L
echo "== prev (adea418)" >> $L; cat $O/table_prev.tsv >> $L
echo "== new, CUDA_MODULE_LOADING=EAGER" >> $L; cat $O/table_eager.tsv >> $L
t0=$SECONDS
timeout 100 $P/gpu_solver_bench --sizes 256,2560 --reps 5 --no-cpu > $O/solver.log 2>&1; echo "gpu_solver_bench rc $? in $((SECONDS - t0)) s" >> $L
tail -25 $O/solver.log >> $L
echo "== done in $SECONDS s" >> $L
cat $L
