#!/usr/bin/env bash
# Call 16h: EDD's junction solve multiplying by each pivot's reciprocal (kept in D) where it
# divided twice per junction (a division subroutine on the serial path), tiled and
# untiled; tiles cut every 24 and 48 beside 32: tile_study (bench/gpu_call_env.sh) at
# 25,600, 2,560 and 256 cells. Pack: arbolito, gpu_tests, branch_bench (gzipped). Log:
# $OUT/s16h.log.
set -u
source bench/gpu_call_env.sh s16h
tile_study gpu-cell,fold,edd-cut32,edd-c24-t1024,edd-c32-t512,edd-c32-t1024,edd-c32-t2048,edd-c48-t1024 25600,2560,256
echo "== done in $SECONDS s" >> $L
cat $L
