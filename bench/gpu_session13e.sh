#!/usr/bin/env bash
# Call 13e: two small variants of the resident step's elimination, side by side with the
# default (a05ca17's: 4 rows ahead, predicted reciprocals), busyring 8,192 cells × 50 ms
# twice and 32,768 once each, interleaved: v1 (ARBOLITO_FINE_MUFU_EARLY: each row's
# approximate reciprocal issued right after its continuant, not after the chunk's),
# v2 (ARBOLITO_FINE_LOADS_FIRST: a branch's first chunk loaded before its children's
# folds, whose dependent loads came first), v12 (both). Same arithmetic: the same bits
# (spikes and events compared in the tables). Pack: GPU_PACK_BINS="arbolito gpu_tests"
# bash bench/gpu_pack.sh build-gpu; arbolito-v1, -v2, -v12 by bench/resident_profile.sh
# with those macros, stripped and gzipped. Log: $OUT/small.log. Neither paid (v1 the
# same, v2 +4-5 %): the macros are gone from fine_sweeps.hpp (v2 split eliminate_rows
# into load_chunk and eliminate_loaded and loaded the first chunk before the folds).
set -u
source bench/gpu_call_env.sh small
R=gpu-fine:step=resident
mkdir -p /tmp/gd/prebuilt && ln -sfn $PWD/.gpu_deps/lib /tmp/gd/lib
cp $P/arbolito $P/arbolito-v0
for r in 1 2; do for v in v0 v1 v2 v12; do
  cp $P/arbolito-$v /tmp/gd/prebuilt/arbolito; GPU_DEPS=/tmp/gd bash bench/busyring_table.sh 8192 "$R" 50 $O/$v.tsv
done; done
for v in v0 v1 v2 v12; do
  cp $P/arbolito-$v /tmp/gd/prebuilt/arbolito; GPU_DEPS=/tmp/gd bash bench/busyring_table.sh 32768 "$R" 50 $O/$v.tsv
done
for v in v0 v1 v2 v12; do echo "== $v" >> $L; cat $O/$v.tsv >> $L; done
echo "== done in $SECONDS s" >> $L
cat $L
