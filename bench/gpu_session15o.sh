#!/usr/bin/env bash
# Call 15o, the session's last: every GPU test on the final code; memcheck on the event
# queue, the resident smoke test and EDD's staged junction rows, racecheck on the latter;
# issue 12's study again for bench/branch_bench_h100.tsv (EDD's junction solve changed
# after call 15j); busyring 1,024 and 8,192 cells × 200 ms with gpu-branch EDD and the
# fold, Arbor 0.12's GPU busyring beside. Pack: arbolito, gpu_tests (gzipped),
# branch_bench (stripped, gzipped); carry .gpu_deps and .arbor-gpu. Log: $OUT/last15o.log.
set -u
source bench/gpu_call_env.sh last15o
run_tests '' 'identical'
sanitize 'GpuEventQueue.*:GpuResidentGroup.SanitizerSmoke:GpuBranch.JunctionRowsInSharedAndDeviceMemory' \
  'GpuBranch.JunctionRowsInSharedAndDeviceMemory'
branch_study
branch_busyring
echo "== done in $SECONDS s" >> $L
cat $L
