#!/usr/bin/env bash
# Call 14q, after the review: the 168-register instance of the resident kernel only where
# shared memory lets at most three blocks share an SM (with shared=55, four blocks of 128
# threads fit by shared memory, and call 14m's binary, arbolito-m, held them to three by
# registers). Every GPU test; outputs at the default byte for byte against arbolito-m;
# busyring 8,192 × 50 ms at the default and at shared=55 beside arbolito-m. Pack:
# arbolito gpu_tests, arbolito-m gzipped. Log: $OUT/review.log.
set -u
source bench/gpu_call_env.sh review
run_tests '' 'mixed sizes gpu-fine step=resident:'
sed -E -e 's/"num-cells": *[0-9]+/"num-cells": 256/' -e 's/"record": *false/"record": true/' bench/models/busyring64.json > /tmp/rec.json
$P/arbolito run /tmp/rec.json --tfinal 50 --solver gpu-fine:step=resident -o /tmp/new.h5 > /dev/null 2>&1
$P/arbolito-m run /tmp/rec.json --tfinal 50 --solver gpu-fine:step=resident -o /tmp/base.h5 > /dev/null 2>&1
cmp /tmp/new.h5 /tmp/base.h5 && echo "outputs byte-identical to 14m's" >> $L || echo "outputs DIFFER" >> $L
R=gpu-fine:step=resident
baseline $P/arbolito-m
beside "8192" "$R $R:shared=55" 50 $O/new.tsv $O/m.tsv
for f in new m; do echo "== $f" >> $L; cat $O/$f.tsv >> $L; done
echo "== done in $SECONDS s" >> $L
cat $L
