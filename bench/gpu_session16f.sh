#!/usr/bin/env bash
# Call 16f: EDD by tiles with rows loaded four ahead and junctions by windows of two (94
# registers a thread) beside one and one (75): tile_study (bench/gpu_call_env.sh) at
# 25,600, 2,560 and 256 cells. Pack: arbolito, gpu_tests, branch_bench (gzipped). Log:
# $OUT/s16f.log.
set -u
source bench/gpu_call_env.sh s16f
tile_study gpu-cell,fold,edd-cut32,edd-c32-t512,edd-c32-t1024,edd-c32-t2048,edd-c32-t512-a4,edd-c32-t1024-a4 25600,2560,256
echo "== done in $SECONDS s" >> $L
cat $L
