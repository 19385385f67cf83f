#!/usr/bin/env bash
# Call 14i: the resident kernel for blocks of at most 128 threads (the default) compiled
# with __launch_bounds__(128, 3) instead of (256, 2): three such blocks fit an SM by shared
# memory anyway, and the register cap rises from 128 to 168 (ptxas: 166 at 4 and 8 rows
# ahead, no spill; at (256, 2) 8 rows ahead spilled 92 bytes, which may be why 4 beat 8
# in calls 13c and 13d). Same bits (outputs compared byte for byte with arbolito-idx,
# 109c627's binary). Busyring 50 ms at 4 and 8 rows ahead beside arbolito-idx. Pack:
# arbolito gpu_tests, arbolito-idx gzipped. Log: $OUT/bounds.log.
set -u
source bench/gpu_call_env.sh bounds
run_tests 'GpuResidentGroup.*'
sed -E -e 's/"num-cells": *[0-9]+/"num-cells": 256/' -e 's/"record": *false/"record": true/' bench/models/busyring64.json > /tmp/rec.json
for s in gpu-fine:step=resident gpu-fine:step=resident:ahead=8; do
  $P/arbolito run /tmp/rec.json --tfinal 50 --solver $s -o /tmp/new.h5 > /dev/null 2>&1
  $P/arbolito-idx run /tmp/rec.json --tfinal 50 --solver gpu-fine:step=resident -o /tmp/base.h5 > /dev/null 2>&1
  cmp /tmp/new.h5 /tmp/base.h5 && echo "$s: outputs byte-identical to 109c627's" >> $L || echo "$s: outputs DIFFER" >> $L
done
R=gpu-fine:step=resident
baseline $P/arbolito-idx
for r in 1 2; do beside "8192" "$R $R:ahead=8" 50 $O/new.tsv $O/idx.tsv; done
beside "32768" "$R $R:ahead=8" 50 $O/new32.tsv $O/idx32.tsv
beside "1024" "$R $R:ahead=8" 200 $O/new1k.tsv $O/idx1k.tsv
log_tsvs new idx new32 idx32 new1k idx1k
echo "== done in $SECONDS s" >> $L
cat $L
