#!/usr/bin/env bash
# Call 17j: gpu-branch's quotients correctly rounded (an experimental build, not committed:
# f, g and h of each eliminated row by gpu::divide's correction step from the row's one
# reciprocal, where the build multiplies by the reciprocal; on the host 25 % smaller
# per-solve error, 8.6e-16 → 6.9e-16 rms on 11-CV cables): whether the whole-run
# deviations from the CPU on the ring shrink (GpuBranchGroup, gpu_tests_div), and what it
# costs (branch_bench_div against the build's branch_bench, alternating, 25,600 and 2,560
# cells). Log: $OUT/s17j.log.
set -u
source bench/gpu_call_env.sh s17j
timeout 200 $P/gpu_tests_div --gtest_filter='GpuBranch*' > $O/tests_div.log 2>&1; echo "gpu_tests_div rc $?" >> $L
grep -E "^\[  (PASSED|FAILED)|Failure|info .*ring|actual" $O/tests_div.log | cut -c1-160 >> $L
V=gpu-cell,edd-c32-t1536,edd-c32-t1024,edd-cut32,fold
for r in 1 2; do
  for b in branch_bench branch_bench_div; do
    echo "== $b" >> $L
    timeout 100 $P/$b --cells 25600,2560 --sets multi,2,deep --reps 9 --variants $V 2>&1 |
      grep -E "^[a-z0-9]+ +[0-9]+ cells" | awk '{printf "%s %s %s %s\n", $1, $2, $6, $11}' | paste -sd' ' |
      sed 's/ \(multi\|2\|deep\|real\) \(25600\|2560\) gpu-cell/\n\1 \2 gpu-cell/g' >> $L
  done
done
echo "== done in $SECONDS s" >> $L
cat $L
