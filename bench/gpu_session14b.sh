#!/usr/bin/env bash
# Call 14b: call 14a's twists made the resident kernel 33 % slower (8,192 cells) although
# the phase clock's levels had half the rows: the twists' rows h lay in device memory,
# so the parent's fold of a twist and every chunk of a top piece's substitution waited
# on a device-memory load. Now h lies in shared memory after the schedule (both
# kernels). Also measured: the twists' code as calls (arbolito-noinl,
# ARBOLITO_TWIST_NOINLINE) against inlined, since with twist=off this binary was 6.5 %
# (resident) and 12 % (streaming) slower than 89db5ba's. Pack as 14a plus arbolito-noinl.
# Log: $OUT/twist2.log.
set -u
source bench/gpu_call_env.sh twist2
run_tests 'GpuFine.*:GpuResidentGroup.SameBits*:GpuResidentGroup.Mixed*' 'mixed sizes gpu-fine step=resident:'
sanitize '' 'GpuResidentGroup.SanitizerSmoke'
R=gpu-fine:step=resident
baseline $P/arbolito-base
variant_deps /tmp/gn arbolito-noinl
for r in 1 2; do
  beside "8192" "$R gpu-fine" 50 $O/new.tsv $O/base.tsv
  bash bench/busyring_table.sh "8192" "$R:twist=off gpu-fine:twist=on:threads=128" 50 $O/new.tsv
  GPU_DEPS=/tmp/gn bash bench/busyring_table.sh "8192" "$R $R:twist=off" 50 $O/noinl.tsv
done
beside "32768" "$R" 50 $O/new32.tsv $O/base32.tsv
log_tsvs new base noinl new32 base32
phase_profile $R
echo "== done in $SECONDS s" >> $L
cat $L
