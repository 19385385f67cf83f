#!/usr/bin/env bash
# Call 14k: the elimination's row 0 as every other row (fine_sweeps::backward): its
# reciprocal predicted off the chain from the continuant, then one Newton step from the
# pivot, instead of the hardware approximation and two Newton steps on the chain after the
# last chunk. Within rounding of before, not the same bits: the GPU tests against the CPU
# (mixed sizes' tolerance 1e-6 mV) and the resident step against streaming gpu-fine (same
# bits, both changed). Busyring 50 ms beside arbolito-lb (27b0d21). Pack: arbolito
# gpu_tests, arbolito-lb gzipped. Log: $OUT/row0.log.
set -u
source bench/gpu_call_env.sh row0
run_tests 'Gpu*Fine*:GpuResident*:GpuCellGroup.*' 'mixed sizes gpu-fine |mixed sizes gpu-fine step=resident:|busyring 64 gpu-fine :|ring gpu-fine :'
R=gpu-fine:step=resident
baseline $P/arbolito-lb
for r in 1 2; do beside "8192" "$R" 50 $O/new.tsv $O/lb.tsv; done
beside "32768" "$R" 50 $O/new.tsv $O/lb.tsv
beside "8192" "gpu-fine" 50 $O/new.tsv $O/lb.tsv
log_tsvs new lb
echo "== done in $SECONDS s" >> $L
cat $L
