#!/usr/bin/env bash
# Call 17l: the sweeps' and junctions' quotients from a one-Newton-step reciprocal
# (gpu::reciprocal_once; divide_by's correction step squares its error): GpuReciprocal
# (divide still correctly rounded but in rare cases) and the gpu-branch tests with every
# variant's whole-run deviation from the CPU; branch_bench against call 17k's build
# (branch_bench_prev), alternating, 25,600 and 2,560 cells; then the tiles' skew and
# prefetch at tiles of 1,536 (25,600 multi and 2 levels). Log: $OUT/s17l.log.
set -u
source bench/gpu_call_env.sh s17l
run_tests 'GpuReciprocal*:GpuBranch*' 'info .*(ring|mixed sizes) gpu-branch|quotients'
V=gpu-cell,fold,edd-cut32,edd-c32-t1024,edd-c32-t1536,edd-c24-t1536
for r in 1 2; do
  for b in branch_bench_prev branch_bench; do
    echo "== $b" >> $L
    timeout 100 $P/$b --cells 25600,2560 --sets multi,2,deep,real --reps 9 --variants $V 2>&1 |
      grep -E "^[a-z0-9]+ +[0-9]+ cells" | awk '{printf "%s %s %s %s\n", $1, $2, $6, $11}' | paste -sd' ' |
      sed 's/ \(multi\|2\|deep\|real\) \(25600\|2560\) gpu-cell/\n\1 \2 gpu-cell/g' >> $L
  done
done
for T in 0 4000 12000 16000; do
  echo "== skew $T" >> $L
  timeout 60 $P/branch_bench --cells 25600 --sets multi,2 --reps 9 --variants gpu-cell,edd-c32-t1536 --tile-skew-ns $T 2>&1 |
    grep -E "^[a-z0-9]+ +[0-9]+ cells" | awk '{printf "%s %s %s %s\n", $1, $2, $6, $11}' | paste -sd' ' >> $L
done
for F in 160 330 500; do
  echo "== prefetch $F" >> $L
  timeout 60 $P/branch_bench --cells 25600 --sets multi,2 --reps 9 --variants gpu-cell,edd-c32-t1536 --tile-prefetch $F 2>&1 |
    grep -E "^[a-z0-9]+ +[0-9]+ cells" | awk '{printf "%s %s %s %s\n", $1, $2, $6, $11}' | paste -sd' ' >> $L
done
echo "== done in $SECONDS s" >> $L
cat $L
