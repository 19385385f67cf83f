#!/usr/bin/env bash
# Call 11d (eleventh session, binary 07bb935 with the option stage=, since reverted): how the
# resident step's shared memory is best spent.
# Busyring cells are 1,479–2,305 CVs and the block size is the kernel's largest, so at
# the default 72 KiB the largest cells already leave v in device memory. Variants at
# 8,192 cells × 50 ms (then 32,768 for three): the staging order (stage=v-first: v
# before u), four blocks per SM (shared=55), five (shared=44, 64 threads), and two cells
# per block at two blocks per SM (shared=113:block=3700). Log: $OUT/stage.log.
set -u
source bench/gpu_call_env.sh stage
R=gpu-fine:step=resident
V="$R $R:stage=v-first $R:shared=55 $R:shared=55:stage=v-first $R:shared=55:stage=v-first:ahead=4
   $R:shared=44:threads=64:stage=v-first $R:shared=113:block=3700 $R:shared=113:block=3700:stage=v-first
   $R:shared=113:block=3700:threads=256"
bash bench/busyring_table.sh "8192" "$V" 50 $O/v8k.tsv
bash bench/busyring_table.sh "8192" "$R $R:stage=v-first $R:shared=55:stage=v-first" 50 $O/v8k.tsv
bash bench/busyring_table.sh "32768" "$R $R:stage=v-first $R:shared=55:stage=v-first" 50 $O/v32k.tsv
cat $O/v8k.tsv $O/v32k.tsv >> $L
echo "== done in $SECONDS s" >> $L
cat $L
