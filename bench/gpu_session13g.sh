#!/usr/bin/env bash
# Call 13g: on the closing binary (a05ca17, call 13f's): every GPU test, then Nsight
# Compute on the resident kernel as call 12f (one 100-step epoch kernel of busyring 8,192
# cells: time, FP64 instruction counts for the FLOP rate, occupancy, warp stalls,
# memory). Pack as 13f. Files: $OUT/ncu.txt, $OUT/tests.log. Log: $OUT/ncu13.log.
set -u
source bench/gpu_call_env.sh ncu13
run_tests '' 'max \|dv\| [0-9.e-]+ mV' >/dev/null
ncu_resident
echo "== done in $SECONDS s" >> $L
cat $L
