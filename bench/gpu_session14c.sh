#!/usr/bin/env bash
# Call 14c: twists rebuilt after 14b (still 39 % slower with h in shared memory; the
# phase clock put about 1,300 cycles into the fold of each level's twisted children at
# the parent, and twist=off was 5 % (resident) and 12 % (streaming) slower than 89db5ba's
# binary with the twists' code merely present). Now the top piece's thread joins its
# twist itself after an extra barrier, from its registers, leaving the branch's whole
# fold in the bottom piece's slots: the parent's child loop is 89db5ba's again. Besides
# this binary (twist on and off), arbolito-strip (ARBOLITO_TWIST_STRIP: the twists'
# code compiled out of both kernels, run with twist=off) against arbolito-base
# (89db5ba). Pack: arbolito gpu_tests chain_latency_bench, arbolito-base, -prof and
# -strip gzipped. Log: $OUT/twist3.log.
set -u
source bench/gpu_call_env.sh twist3
run_tests 'GpuFine.*:GpuResidentGroup.*:GpuCellGroup.*' 'mixed sizes gpu-fine step=resident:|busyring 64 gpu-fine :'
sanitize 'GpuResidentGroup.SanitizerSmoke' 'GpuResidentGroup.SanitizerSmoke'
R=gpu-fine:step=resident
baseline $P/arbolito-base
variant_deps /tmp/gs arbolito-strip
for r in 1 2; do
  beside "8192" "$R gpu-fine" 50 $O/new.tsv $O/base.tsv
  bash bench/busyring_table.sh "8192" "$R:twist=off gpu-fine:twist=on:threads=128" 50 $O/new.tsv
  GPU_DEPS=/tmp/gs bash bench/busyring_table.sh "8192" "$R:twist=off gpu-fine" 50 $O/strip.tsv
done
beside "32768" "$R" 50 $O/new32.tsv $O/base32.tsv
log_tsvs new base strip new32 base32
phase_profile $R
echo "== done in $SECONDS s" >> $L
cat $L
