#!/usr/bin/env bash
# Call 14o: the resident step's blocks launched largest first (ResidentPlan::order). At
# 1,024 cells the kernel is 2.6 waves of blocks and its end waits for the slowest, the
# largest cells (1.5-3 k CVs, v not always staged): shared=74 against 72 alone took 18 %
# off there (call 14n) but 1.3 % at 8,192 and 32,768. Same bits (outputs byte for byte
# against arbolito-m, call 14m's binary). Busyring beside arbolito-m: 1,024 cells × 200 ms
# twice, 8,192 and 32,768 × 50 ms. Pack: arbolito gpu_tests, arbolito-m gzipped. Log:
# $OUT/order.log.
set -u
source bench/gpu_call_env.sh order
run_tests 'GpuResidentGroup.*'
same_outputs arbolito arbolito-m gpu-fine:step=resident
R=gpu-fine:step=resident
baseline $P/arbolito-m
for r in 1 2; do beside "1024" "$R" 200 $O/new.tsv $O/m.tsv; done
beside "8192 32768" "$R" 50 $O/new.tsv $O/m.tsv
log_tsvs new m
echo "== done in $SECONDS s" >> $L
cat $L
