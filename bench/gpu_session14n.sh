#!/usr/bin/env bash
# Call 14n: call 14m's 1,024-cell figure (0.604 s, 19 % below call 14h's 0.743) with
# shared=72 and 74 side by side (74 is the new auto) and auto, twice each, 200 ms, the
# same binary as 14m. Log: $OUT/k1.log.
set -u
source bench/gpu_call_env.sh k1
R=gpu-fine:step=resident
for r in 1 2; do bash bench/busyring_table.sh "1024" "$R $R:shared=72 $R:shared=74" 200 $O/k1.tsv; done
cat $O/k1.tsv >> $L
echo "== done in $SECONDS s" >> $L
cat $L
