#!/usr/bin/env bash
# Call 11a (eleventh session, run as bench/gpu_projective_check.sh). What the tenth session
# built after its last device call: the GPU assembly from terms precomputed for dt (the
# same bits by construction) and gpu-fine's elim=projective (fine_sweeps::
# backward_projective, tested on the host). The whole GPU suite (with
# MechanismAgreement.PrecomputedAssemblySameBitsAsDevice and the projective variants),
# racecheck; busyring 8,192 cells × 50 ms against arbolito-base where packed (the binary
# of e56584b, the last one measured); 8,192 and 32,768 × 50 ms, resident and streaming,
# elim=projective against reciprocal side by side; the phase clock's per-level cycles for
# both (arbolito-prof from bench/resident_profile.sh). Log: $OUT/projective.log.
# elim=projective was removed after this call (slower): the script needs 5b01f20's binary.
set -u
source bench/gpu_call_env.sh projective
run_tests
sanitize 'GpuResidentGroup.SanitizerSmoke' 'GpuResidentGroup.SanitizerSmoke'
R=gpu-fine:step=resident
if [ -x $P/arbolito-base ]; then
  baseline $P/arbolito-base
  for r in 1 2; do
    beside "8192" "$R gpu-fine" 50 $O/ab_new.tsv $O/ab_base.tsv
  done
  echo "== this binary, then arbolito-base" >> $L; cat $O/ab_new.tsv $O/ab_base.tsv >> $L
fi
for r in 1 2; do
  bash bench/busyring_table.sh "8192" "$R $R:elim=projective gpu-fine gpu-fine:elim=projective" 50 $O/t8k.tsv
done
bash bench/busyring_table.sh "32768" "$R $R:elim=projective" 50 $O/t32k.tsv
cat $O/t8k.tsv $O/t32k.tsv >> $L
phase_profile $R $R:elim=projective
echo "== done in $SECONDS s" >> $L
cat $L
