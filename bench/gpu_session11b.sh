#!/usr/bin/env bash
# Call 11b (eleventh session): each chunk of a branch's rows without a branch inside
# (fine_sweeps::eliminate_rows / substitute_rows; the rest in chunks of 4, 2, 1) against
# arbolito-base (5b01f20: a `return` test per row), and arbolito-pf (the same, with the
# next chunk's loads issued before this chunk's arithmetic: ARBOLITO_FINE_PREFETCH, the
# resident kernel only). Tests of the fine and resident solvers first; then busyring
# 8,192 cells × 50 ms resident (ahead 8 and 4) and streaming, 32,768 resident; the
# phase clock of the new binary. Log: $OUT/chunks.log.
set -u
source bench/gpu_call_env.sh chunks
run_tests 'Gpu*Fine*:GpuResident*:MechanismAgreement*'
R=gpu-fine:step=resident
baseline $P/arbolito-base
mkdir -p /tmp/gp/prebuilt && ln -sfn $PWD/.gpu_deps/lib /tmp/gp/lib && cp $P/arbolito-pf /tmp/gp/prebuilt/arbolito
for r in 1 2; do
  beside "8192" "$R $R:ahead=4 gpu-fine" 50 $O/new.tsv $O/base.tsv
  GPU_DEPS=/tmp/gp bash bench/busyring_table.sh "8192" "$R $R:ahead=4" 50 $O/pf.tsv
done
beside "32768" "$R" 50 $O/new32.tsv $O/base32.tsv
for f in new base pf new32 base32; do echo "== $f" >> $L; cat $O/$f.tsv >> $L; done
phase_profile $R
echo "== done in $SECONDS s" >> $L
cat $L
