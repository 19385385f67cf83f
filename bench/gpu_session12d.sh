#!/usr/bin/env bash
# (solve=lanes was reverted in 9baebe7: this call ran binaries of 136c996 / 1c30356.)
# Call 12d: solve=lanes with turns that have no branch inside (a short last turn puts its
# rows in its last slots; the first slots store into the first row, which its own slot
# then overwrites; call 12c's turns stored under a condition per slot). The resident
# bit-identity tests (both solves), then busyring 8,192 cells × 50 ms twice: levels,
# lanes, lanes with turns of 4 rows, lanes without the cost split. Log: $OUT/lanes3.log.
set -u
source bench/gpu_call_env.sh lanes3
run_tests 'GpuResidentGroup.SameBitsAsStreaming:GpuResidentGroup.EpochsOfOneStepAndMany'
R=gpu-fine:step=resident
for r in 1 2; do bash bench/busyring_table.sh "8192" "$R $R:solve=lanes $R:solve=lanes:ahead=4 $R:solve=lanes:split=off" 50 $O/v8k.tsv; done
cat $O/v8k.tsv >> $L
echo "== done in $SECONDS s" >> $L
cat $L
