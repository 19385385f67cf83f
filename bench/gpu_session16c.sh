#!/usr/bin/env bash
# Call 16c: EDD by tiles with h over u (24 B a row of shared memory, was 32): tile_study
# (bench/gpu_call_env.sh) at 25,600, 2,560 and 256 cells, busyring 1,024 cells with tiles
# of 2,048 and 4,000 CVs. Pack: arbolito, gpu_tests, branch_bench (gzipped). Log:
# $OUT/s16c.log.
set -u
source bench/gpu_call_env.sh s16c
tile_study gpu-cell,fold,edd-cut32,edd-c16-t1024,edd-c32-t512,edd-c32-t1024,edd-c32-t2048,edd-c64-t1024 25600,2560,256 "2048 4000"
echo "== done in $SECONDS s" >> $L
cat $L
