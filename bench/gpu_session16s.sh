#!/usr/bin/env bash
# Call 16s: after the review of the change since 89db5ba (device attributes read once in
# DeviceShape, the event queue's per-epoch fields made locals, the EDD tiles' set-up in its
# own function, gpu::divide tested): every GPU test (the new GpuReciprocal.DivideRoundsAsDivision
# among them); memcheck on the event queue's and gpu-branch's tests; whole-run outputs
# byte-identical to the session's measured binary (arbolito-prev) with the resident step,
# streaming gpu-fine, gpu-cell, the fold and EDD by tiles. Pack: arbolito, arbolito-prev,
# gpu_tests (gzipped). Log: $OUT/s16s.log.
set -u
source bench/gpu_call_env.sh s16s
run_tests '' 'correctly rounded|identical'
grep -E "actual|trace" $O/tests.log | head -6 >> $L
sanitize 'GpuEventQueue.*:GpuBranch.EddTilesSameBitsAsUntiled' ''
same_outputs arbolito arbolito-prev gpu-fine:step=resident gpu-fine gpu-cell gpu-branch:coupling=fold \
  gpu-branch:coupling=edd:tile=1024
echo "== done in $SECONDS s" >> $L
cat $L
