#!/usr/bin/env bash
# Ready for the next session's first device call (not yet run): gpu-fine's elim=projective
# (fine_sweeps::backward_projective, built and tested on the host in the tenth session).
# Its GPU tests (the GpuFine solve against the CPU, and whole runs: GpuFineGroup and
# GpuResidentGroup variants), racecheck; then busyring 8,192 cells × 50 ms and 32,768 ×
# 50 ms, resident and streaming, elim=projective against reciprocal side by side, and the
# phase clock's per-level cycles for both (arbolito-prof: bench/resident_profile.sh,
# packed as .gpu_deps/prebuilt/arbolito-prof). Log: $OUT/projective.log.
set -u
source bench/gpu_call_env.sh projective
run_tests 'GpuFine.*:GpuFineGroup.*:GpuResidentGroup.*'
sanitize '' 'GpuResidentGroup.SanitizerSmoke'
R=gpu-fine:step=resident
for r in 1 2; do
  bash bench/busyring_table.sh "8192" "$R $R:elim=projective gpu-fine gpu-fine:elim=projective" 50 $O/t8k.tsv
done
bash bench/busyring_table.sh "32768" "$R $R:elim=projective" 50 $O/t32k.tsv
cat $O/t8k.tsv $O/t32k.tsv >> $L
sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": 8192/" examples/busyring.json > /tmp/b8192.json
for s in $R $R:elim=projective; do
  echo "== profile $s" >> $L
  [ -x $P/arbolito-prof ] && timeout 60 $P/arbolito-prof run /tmp/b8192.json --tfinal 20 --solver $s --spikes-only \
    -o /tmp/o.h5 2>&1 | grep "resident profile" >> $L
done
echo "== done in $SECONDS s" >> $L
cat $L
