#!/usr/bin/env bash
# Call 16n: where a tile's block spends its cycles. branch_bench_exp is branch_bench built
# from an experimental copy of solvers/gpu/hines_gpu_branch.cu (not committed) whose
# tiles' kernel reads clock64() at each phase's barrier (thread 0) and prints, at exit,
# the mean cycles per block of: the copies in, eliminate, assemble, the junction solve,
# complete, the copy out. 25,600 cells, cut 32. Pack: branch_bench_exp (gzipped). Log:
# $OUT/s16n.log.
set -u
source bench/gpu_call_env.sh s16n
for sv in multi:edd-c32-t1024 multi:edd-c32-t512 deep:edd-c32-t1024 real:edd-c32-t1024 2:edd-c32-t1024; do
  echo "== ${sv%%:*} ${sv#*:}" >> $L
  timeout 60 $P/branch_bench_exp --cells 25600 --sets ${sv%%:*} --reps 7 --variants ${sv#*:} 2>&1 |
    grep -E "^[a-z0-9]+ +25600 cells|PHASES" | tail -2 >> $L
done
echo "== done in $SECONDS s" >> $L
cat $L
