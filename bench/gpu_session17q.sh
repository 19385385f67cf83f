#!/usr/bin/env bash
# Call 17q: memcheck on the review's binary (17p's memcheck on GpuBranch.* and
# GpuCellGroup.* together ran past its 90 s): GpuBranch.* and GpuEventQueue.*, and
# racecheck on the tiles' tests. Log: $OUT/s17q.log.
set -u
source bench/gpu_call_env.sh s17q
sanitize 'GpuBranch.*:GpuEventQueue.*' 'GpuBranch.EddTiles*'
echo "== done in $SECONDS s" >> $L
cat $L
