#!/usr/bin/env bash
# Call 12h: hh's gates advanced on three warps (mechanism ABI: independent_states and
# advance_state; the resident step deals state j of instance k to thread 32·j + k) against
# call 12g's binary (arbolito-base: every state of an instance on one thread, thread 0 for
# the soma's hh). The bit-identity GPU tests (resident against streaming, mechanisms against
# the host), busyring 8,192 cells × 50 ms twice and 32,768 once beside the base, and the
# phase clock with the states phase split in two (advance; detectors, samples and the
# step's last barrier), for both binaries. Log: $OUT/gates.log.
set -u
source bench/gpu_call_env.sh gates
run_tests 'Gpu*Fine*:GpuResident*:MechanismAgreement*:GpuCellGroup.*'
R=gpu-fine:step=resident
baseline $P/arbolito-base
ab_check "$R"
phase_profile $R
mv $P/arbolito-prof-base $P/arbolito-prof
echo "== base binary's profile" >> $L
phase_profile $R
echo "== done in $SECONDS s" >> $L
cat $L
