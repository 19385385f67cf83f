#!/usr/bin/env bash
# Call 16a: EDD by tiles (one launch per solve, each tile's rows in shared memory), run
# three times as the kernel was mended (bench/RESULTS.md): tile_study (bench/gpu_call_env.sh:
# the gpu-branch GPU tests, the new GpuBranch.EddTilesSameBitsAsUntiled among them,
# sanitizers on it, whole runs compared between the CPU, untiled and tiled EDD) with the
# tiled variants beside gpu-cell, the fold and untiled EDD at 2,560 and 25,600 cells, no
# busyring. Pack: arbolito, gpu_tests, branch_bench (gzipped). Log: $OUT/s16a.log.
set -u
source bench/gpu_call_env.sh s16a
tile_study gpu-cell,fold,edd-cut32,edd-c16-t1024,edd-c32-t512,edd-c32-t1024,edd-c32-t2048,edd-c64-t1024 2560,25600 none
echo "== done in $SECONDS s" >> $L
cat $L
