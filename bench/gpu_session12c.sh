#!/usr/bin/env bash
# (solve=lanes was reverted in 9baebe7: this call ran binaries of 136c996 / 1c30356.)
# Call 12c: (1) solve=lanes with the warp meeting before each turn (__syncwarp in a loop
# that runs while any lane of the warp has work: call 12b's lanes split a warp between
# polling and turns, 1.65× the level loop's kernel) and the fold's products unfused
# (12b's lanes differed from the level loop in the last bit); (2) the states phase dealt
# over warps (each mechanism and the detectors from a different warp; call 12b's binary
# as arbolito-base). The resident bit-identity tests (both solves), then busyring 8,192
# cells × 50 ms twice and 32,768 once. Log: $OUT/lanes2.log.
set -u
source bench/gpu_call_env.sh lanes2
run_tests 'GpuResidentGroup.SameBitsAsStreaming:GpuResidentGroup.EpochsOfOneStepAndMany'
R=gpu-fine:step=resident
baseline $P/arbolito-base
for r in 1 2; do beside "8192" "$R $R:solve=lanes" 50 $O/new.tsv $O/base.tsv; done
bash bench/busyring_table.sh "32768" "$R" 50 $O/new.tsv
for f in new base; do echo "== $f" >> $L; cat $O/$f.tsv >> $L; done
echo "== done in $SECONDS s" >> $L
cat $L
