#!/usr/bin/env bash
# Fifth device call of the ninth session: streaming gpu-fine after the schedule fix at
# 1,024 cells, then busyring 32,768 cells × 200 ms (resident, gpu-fine, gpu-branch fold,
# gpu-cell) and Arbor 0.12's GPU busyring at 32,768 in the same call. Log $OUT/s9e.log.
set -u
source bench/gpu_call_env.sh s9e
t0=$SECONDS
bash bench/busyring_table.sh "1024" "gpu-fine gpu-fine:split=off" 200 $O/table.tsv
bash bench/busyring_table.sh "32768" "gpu-fine:step=resident gpu-fine gpu-branch:coupling=fold gpu-cell" 200 $O/table.tsv
echo "table in $((SECONDS - t0)) s" >> $L; cat $O/table.tsv >> $L
t0=$SECONDS; left=$((560 - SECONDS))
OUT=/tmp/arb RUN_TIMEOUT=$left timeout $left bash .arbor-gpu/run.sh 32768 > /tmp/arb.log 2>&1; echo "arbor rc $? in $((SECONDS - t0)) s" >> $L
grep -E "^--- " /tmp/arb.log | tail -6 >> $L; cp /tmp/arb/arbor_busyring_summary.tsv $O/ 2>/dev/null; cat /tmp/arb/arbor_busyring_summary.tsv >> $L 2>/dev/null
echo "== done in $SECONDS s" >> $L
cat $L
