#!/usr/bin/env bash
# Call 16e: EDD by tiles in blocks of like lengths (a block ends where a slot is shorter
# than 3/4 of its first: less padding, so fewer rows copied and more blocks an SM):
# tile_study (bench/gpu_call_env.sh) at 25,600, 2,560 and 256 cells. Pack: arbolito,
# gpu_tests, branch_bench (gzipped). Log: $OUT/s16e.log.
set -u
source bench/gpu_call_env.sh s16e
tile_study gpu-cell,fold,edd-cut32,edd-c16-t1024,edd-c32-t512,edd-c32-t1024,edd-c32-t2048,edd-c64-t1024 25600,2560,256
echo "== done in $SECONDS s" >> $L
cat $L
