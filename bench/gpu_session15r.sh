#!/usr/bin/env bash
# Call 15r: EDD's junction rows staged up to 96 KiB a block of 32 cells where all staged
# blocks run at once, else up to 74 KiB (call 15q). gpu-branch's GPU tests (memcheck and
# racecheck on the mixed-group test); outputs byte-identical to ea1928f's; issue 12's
# study again (every set and variant, 256 to 25,600 cells) for bench/branch_bench_h100.tsv;
# busyring 1,024 and 8,192 cells × 200 ms with gpu-branch EDD and the fold, Arbor 0.12's
# GPU busyring beside. Pack: arbolito, gpu_tests (gzipped), branch_bench and
# arbolito-ea1928f (stripped, gzipped); carry .gpu_deps and .arbor-gpu. Log: $OUT/cap15r.log.
set -u
source bench/gpu_call_env.sh cap15r
run_tests 'GpuBranch*'
sanitize 'GpuBranch.JunctionRowsInSharedAndDeviceMemory' 'GpuBranch.JunctionRowsInSharedAndDeviceMemory'
same_outputs arbolito arbolito-ea1928f gpu-branch:coupling=edd gpu-branch:coupling=edd:cut=8 gpu-branch:coupling=edd:cut=32
branch_study
branch_busyring
echo "== done in $SECONDS s" >> $L
cat $L
