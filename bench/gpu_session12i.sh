#!/usr/bin/env bash
# Call 12i: density mechanisms' states (hh) advance at the start of the next step, beside
# its events and assembly, instead of before the step's last barrier (point mechanisms,
# which take events, still advance at once); hh's gate loop unrolled (call 12h's binary
# kept an instance's states in local memory: a 120-byte stack frame). Against call 12h's
# binary (arbolito-base). The bit-identity GPU tests, memcheck and racecheck on the
# resident smoke test, busyring 8,192 cells × 50 ms twice and 32,768 once beside the base,
# and the phase clock. Log: $OUT/defer.log.
set -u
source bench/gpu_call_env.sh defer
run_tests 'Gpu*Fine*:GpuResident*:MechanismAgreement*:GpuCellGroup.*'
sanitize 'GpuResidentGroup.SanitizerSmoke' 'GpuResidentGroup.SanitizerSmoke'
R=gpu-fine:step=resident
baseline $P/arbolito-base
ab_check "$R"
phase_profile $R
echo "== done in $SECONDS s" >> $L
cat $L
