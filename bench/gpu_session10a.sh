#!/usr/bin/env bash
# First device call of the tenth session: the whole GPU suite (with the event queue's
# pack-ahead test) and memcheck on the new event queue; busyring 8,192 and 1,024 cells ×
# 200 ms on the resident step, the events copied and sorted on their own stream while the
# previous epoch runs (arbolito) against the ninth session's binary (arbolito-prev, commit
# adea418: copy and sort on the group's stream at the epoch's start), interleaved; one run
# with CUDA_MODULE_LOADING=EAGER (how much of the run is the first launches' loading);
# gpu_solver_bench quick (the ninth session's review of its slot check). Log: $OUT/s10a.log.
set -u
source bench/gpu_call_env.sh s10a
run_tests
sanitize 'GpuEventQueue.*:GpuResidentGroup.SanitizerSmoke:GpuCellGroup.PreparedEventsSameBits' 'GpuResidentGroup.SanitizerSmoke'
baseline $P/arbolito-prev
for r in 1 2; do
  beside "8192 1024" "gpu-fine:step=resident" 200 $O/table.tsv $O/table_prev.tsv
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
