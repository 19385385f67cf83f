#!/usr/bin/env bash
# Call 15p: EDD's junction groups launched apart by where their rows go (call 15o: the
# real cells at 25,600, whose groups mostly do not fit, solved in device memory inside
# blocks sized for the staged ones, two an SM: EDD 0.071 -> 0.088 ns/CV). Staged groups:
# 128 threads and shared memory; the others: 32 threads, none. gpu-branch's GPU tests
# (memcheck and racecheck on the mixed-group test); outputs byte-identical to ea1928f's;
# issue 12's study again (every set, 256 to 25,600 cells) for bench/branch_bench_h100.tsv.
# Pack: arbolito, gpu_tests (gzipped), branch_bench and arbolito-ea1928f (stripped,
# gzipped). Log: $OUT/groups15p.log.
set -u
source bench/gpu_call_env.sh groups15p
run_tests 'GpuBranch*'
sanitize 'GpuBranch.JunctionRowsInSharedAndDeviceMemory' 'GpuBranch.JunctionRowsInSharedAndDeviceMemory'
same_outputs arbolito arbolito-ea1928f gpu-branch:coupling=edd gpu-branch:coupling=edd:cut=8 gpu-branch:coupling=edd:cut=32
branch_study
echo "== done in $SECONDS s" >> $L
cat $L
