#!/usr/bin/env bash
# Call 14l: the resident step's shared memory per block. Three blocks fit an H100 SM
# while 3 x (dynamic + 352 static + 1,024 reserved) <= 233,472 bytes, i.e. up to 74.6 KiB
# of dynamic shared memory, not only the default 72: at 74 the plan stages v in 81 % of
# busyring's blocks instead of 76 % (resident_plan on 512 cells). Busyring 50 ms with
# shared=72 (the default), 73, 74 and 75 (which should drop to two blocks per SM), same
# binary (7ef6ae0, 27b0d21's code). Pack: arbolito gpu_tests. Log: $OUT/shared.log.
set -u
source bench/gpu_call_env.sh shared
R=gpu-fine:step=resident
for r in 1 2; do bash bench/busyring_table.sh "8192" "$R $R:shared=73 $R:shared=74 $R:shared=75" 50 $O/v8k.tsv; done
bash bench/busyring_table.sh "32768" "$R $R:shared=74" 50 $O/v32k.tsv
cat $O/v8k.tsv $O/v32k.tsv >> $L
echo "== done in $SECONDS s" >> $L
cat $L
