#!/usr/bin/env bash
# Call 15t: every GPU test on the session's final binary (after calls 15p-15s changed
# gpu-branch's junction kernels); memcheck on gpu-branch's solver tests and the event
# queue's, racecheck on the mixed-group test. Pack: arbolito, gpu_tests (gzipped). Log:
# $OUT/final15t.log.
set -u
source bench/gpu_call_env.sh final15t
run_tests '' 'identical'
sanitize 'GpuBranch.*:GpuEventQueue.*' 'GpuBranch.JunctionRowsInSharedAndDeviceMemory'
echo "== done in $SECONDS s" >> $L
cat $L
