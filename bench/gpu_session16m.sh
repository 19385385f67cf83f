#!/usr/bin/env bash
# Call 16m: the busyring table at 32,768 cells, 200 ms, every solver (EDD by tile=auto) and
# auto on the session's final binary, then Arbor 0.12's GPU busyring at 32,768 cells.
# Pack: arbolito; carry .arbor-gpu. Log: $OUT/s16m.log.
set -u
source bench/gpu_call_env.sh s16m
t0=$SECONDS
S="gpu-fine:step=resident gpu-fine gpu-branch:coupling=fold gpu-branch:coupling=edd gpu-cell auto"
bash bench/busyring_table.sh "32768" "$S" 200 $O/table.tsv
echo "arbolito table in $((SECONDS - t0)) s" >> $L; cat $O/table.tsv >> $L
t0=$SECONDS; left=$((585 - SECONDS))
OUT=/tmp/arb32 RUN_TIMEOUT=$left timeout $left bash .arbor-gpu/run.sh 32768 > /tmp/arb32.log 2>&1; echo "arbor 32768 rc $? in $((SECONDS - t0)) s (allowed $left)" >> $L
cp /tmp/arb32/arbor_busyring_summary.tsv $O/arbor_32768.tsv 2>/dev/null; cat /tmp/arb32/arbor_busyring_summary.tsv >> $L 2>/dev/null
echo "== done in $SECONDS s" >> $L
cat $L
