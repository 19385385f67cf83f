#!/usr/bin/env bash
# Call 16j: EDD by tiles with at most 128 threads a block (real cells' tiles of ~400 slots
# took 384-768 threads, whose registers held an SM to one or two blocks) beside 64 and
# 1,024 (the previous rule): tile_study (bench/gpu_call_env.sh) at 25,600, 2,560 and 256
# cells. Pack: arbolito, gpu_tests, branch_bench (gzipped). Log: $OUT/s16j.log.
set -u
source bench/gpu_call_env.sh s16j
tile_study gpu-cell,fold,edd-cut32,edd-c32-t512,edd-c32-t1024,edd-c32-t2048,edd-c32-t1024-b64,edd-c32-t1024-b1024,edd-c32-t2048-b1024 25600,2560,256
echo "== done in $SECONDS s" >> $L
cat $L
