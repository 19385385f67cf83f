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
same_outputs arbolito arbolito-m gpu-fine:step=resident
R=gpu-fine:step=resident
baseline $P/arbolito-m
beside "8192" "$R $R:shared=55" 50 $O/new.tsv $O/m.tsv
log_tsvs new m
echo "== done in $SECONDS s" >> $L
cat $L
