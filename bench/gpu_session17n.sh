#!/usr/bin/env bash
# Call 17n: busyring 32,768 cells × 200 ms with gpu-branch (fold, EDD untiled as auto
# leaves it there, EDD by tiles of 1,536) on the final binary, and Arbor 0.12's GPU
# busyring at 32,768 beside it. Pack: arbolito; carry .arbor-gpu. Log: $OUT/s17n.log.
set -u
source bench/gpu_call_env.sh s17n
t0=$SECONDS
bash bench/busyring_table.sh "32768" \
  "gpu-branch:coupling=fold gpu-branch:coupling=edd gpu-branch:coupling=edd:tile=1536" 200 $O/busy.tsv
echo "busyring in $((SECONDS - t0)) s" >> $L; cat $O/busy.tsv >> $L
t0=$SECONDS; left=$((580 - SECONDS))
OUT=/tmp/arb32 RUN_TIMEOUT=$left timeout $left bash .arbor-gpu/run.sh 32768 > /tmp/arb32.log 2>&1
echo "arbor 32768 rc $? in $((SECONDS - t0)) s (allowed $left)" >> $L
cp /tmp/arb32/arbor_busyring_summary.tsv $O/arbor_32768.tsv 2>/dev/null; cat /tmp/arb32/arbor_busyring_summary.tsv >> $L 2>/dev/null
echo "== done in $SECONDS s" >> $L
cat $L
