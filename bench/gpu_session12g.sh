#!/usr/bin/env bash
# Call 12g (twelfth session): the final table, binary 9baebe7 (= 41134b8's engine: call 12a's batched
# loads). The fine and resident GPU tests, then busyring × 200 ms: resident at 1,024 / 8,192 / 32,768 cells,
# streaming gpu-fine at 8,192 / 32,768, gpu-cell at 32,768; Arbor 0.12's GPU busyring at
# 1,024 and 8,192, then at 32,768 with what is left of the call. Log: $OUT/final.log.
set -u
source bench/gpu_call_env.sh final12
run_tests 'Gpu*Fine*:GpuResident*'
t0=$SECONDS
R=gpu-fine:step=resident
bash bench/busyring_table.sh "1024 8192" "$R" 200 $O/table.tsv
bash bench/busyring_table.sh "8192" "gpu-fine" 200 $O/table.tsv
bash bench/busyring_table.sh "32768" "$R gpu-fine gpu-cell" 200 $O/table.tsv
echo "arbolito table in $((SECONDS - t0)) s" >> $L; cat $O/table.tsv >> $L
t0=$SECONDS
OUT=/tmp/arb RUN_TIMEOUT=120 timeout 150 bash .arbor-gpu/run.sh 1024 8192 > /tmp/arb.log 2>&1; echo "arbor 1024 8192 rc $? in $((SECONDS - t0)) s" >> $L
cp /tmp/arb/arbor_busyring_summary.tsv $O/arbor_small.tsv 2>/dev/null; cat /tmp/arb/arbor_busyring_summary.tsv >> $L 2>/dev/null
t0=$SECONDS; left=$((580 - SECONDS))
OUT=/tmp/arb32 RUN_TIMEOUT=$left timeout $left bash .arbor-gpu/run.sh 32768 > /tmp/arb32.log 2>&1; echo "arbor 32768 rc $? in $((SECONDS - t0)) s (allowed $left)" >> $L
grep -E "^--- " /tmp/arb32.log | tail -6 >> $L; cp /tmp/arb32/arbor_busyring_summary.tsv $O/arbor_32768.tsv 2>/dev/null
cat /tmp/arb32/arbor_busyring_summary.tsv >> $L 2>/dev/null; tail -5 /tmp/arb32.log >> $L
echo "== done in $SECONDS s" >> $L
cat $L
