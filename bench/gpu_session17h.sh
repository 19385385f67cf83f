#!/usr/bin/env bash
# Call 17h: the study on the session's binary (tile=auto now 1,536 CVs): every GPU test;
# memcheck and racecheck on the tiles' tests; whole-run outputs (busyring 256 × 50 ms)
# byte-identical to call 17g's binary (arbolito-prev, tiles of 1,024 by default) with EDD
# by tiles of 1,536 and untiled; then branch_study (bench/gpu_call_env.sh; every set and
# variant, 256 to 25,600 cells) for bench/branch_bench_h100.tsv and the summary.
# Pack: arbolito, arbolito-prev, gpu_tests, branch_bench (gzipped). Log: $OUT/s17h.log.
set -u
source bench/gpu_call_env.sh s17h
run_tests '' 'Tiles'
sanitize 'GpuBranch.EddTiles*' 'GpuBranch.EddTiles*'
same_outputs arbolito arbolito-prev gpu-branch:coupling=edd:tile=1536 gpu-branch:coupling=edd:tile=0
branch_study 400
echo "== done in $SECONDS s" >> $L
cat $L
