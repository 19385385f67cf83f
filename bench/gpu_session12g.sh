#!/usr/bin/env bash
# Call 12g (twelfth session): the final table, binary 9baebe7 (= 41134b8's engine: call 12a's batched
# loads). The fine and resident GPU tests, then busyring × 200 ms: resident at 1,024 / 8,192 / 32,768 cells,
# streaming gpu-fine at 8,192 / 32,768, gpu-cell at 32,768; Arbor 0.12's GPU busyring at
# 1,024 and 8,192, then at 32,768 with what is left of the call. Log: $OUT/final.log.
set -u
source bench/gpu_call_env.sh final12
run_tests 'Gpu*Fine*:GpuResident*'
final_table
echo "== done in $SECONDS s" >> $L
cat $L
