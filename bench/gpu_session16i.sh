#!/usr/bin/env bash
# Call 16i: EDD's junction solve dividing by gpu::divide (reciprocal, quotient and one
# correction: the division's rounding but in rare ties, no subroutine on the serial path);
# call 16h's plain multiplication by the reciprocal lost accuracy (the mixed-sizes
# whole-run test at 1.06e-6 mV against 1e-6 with cut 1). tile_study (bench/gpu_call_env.sh)
# at 25,600, 2,560 and 256 cells. Pack: arbolito, gpu_tests, branch_bench (gzipped). Log:
# $OUT/s16i.log.
set -u
source bench/gpu_call_env.sh s16i
tile_study gpu-cell,fold,edd-cut32,edd-c24-t1024,edd-c32-t512,edd-c32-t1024,edd-c32-t2048,edd-c48-t1024 25600,2560,256
grep -E "actual|trace" $O/tests.log | head -8 >> $L
echo "== done in $SECONDS s" >> $L
cat $L
