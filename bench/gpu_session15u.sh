#!/usr/bin/env bash
# Call 15u: after the review (EDD's junction row bytes one public constant; the staged
# kernel's shared-memory limit raised once, before the occupancy query): gpu-branch's and
# the event queue's GPU tests, memcheck on the mixed-group test, whole-run outputs
# byte-identical to ea1928f's. Pack: arbolito, gpu_tests (gzipped), arbolito-ea1928f
# (stripped, gzipped). Log: $OUT/review15u.log.
set -u
source bench/gpu_call_env.sh review15u
run_tests 'GpuBranch*:GpuEventQueue.*'
sanitize 'GpuBranch.JunctionRowsInSharedAndDeviceMemory' ''
same_outputs arbolito arbolito-ea1928f gpu-branch:coupling=edd gpu-branch:coupling=edd:cut=8 gpu-branch:coupling=fold \
  gpu-fine:step=resident
echo "== done in $SECONDS s" >> $L
cat $L
