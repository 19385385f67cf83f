#!/usr/bin/env bash
# Call 11e (eleventh session): split=cost (fine_layout's split_by_cost: each cell's
# branches cut where the modelled solve, a level ≈ its longest piece + 6 rows, falls;
# host model: −5.8 % rows per block on busyring) against the median rule (split=on, the
# default). The fine and resident GPU tests (with split=cost variants), then busyring
# 8,192 cells × 50 ms (two runs) and 32,768, resident and streaming. Log: $OUT/split.log.
set -u
source bench/gpu_call_env.sh split
run_tests 'Gpu*Fine*:GpuResident*'
R=gpu-fine:step=resident
variants "$R $R:split=cost gpu-fine gpu-fine:split=cost" "$R $R:split=cost"
echo "== done in $SECONDS s" >> $L
cat $L
