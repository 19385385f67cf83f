#!/usr/bin/env bash
# Call 13c: call 13b's elimination (each row's reciprocal predicted off the chain by the
# continuant), written in the order it should issue: a GPU issues a warp's instructions
# in order, and call 13b's chain bench still gave 83 cycles a row, as before, although
# the chain is three multiply-adds: each row's stores and its reciprocal's Newton steps
# stalled what came after them. Now the continuant's chain, then the approximate
# reciprocals, then their Newton steps, then the pivots' chain with each row's results
# stored a row late; the substitution's stores a row late too. Same tests, chain bench
# and busyring runs as 13b against d4ae0c6's binary. Pack as 13b. Log: $OUT/order.log.
set -u
source bench/gpu_call_env.sh order
run_tests 'Gpu*Fine*:GpuResident*:GpuCellGroup.*:FineBench*' 'mixed sizes gpu-fine |mixed sizes gpu-fine step=resident:|busyring 64 gpu-fine :'
chain_bench 64
sanitize 'GpuResidentGroup.SanitizerSmoke' 'GpuResidentGroup.SanitizerSmoke'
R=gpu-fine:step=resident
baseline $P/arbolito-base
ab_check "$R $R:ahead=4 gpu-fine" "$R $R:ahead=4"
phase_profile $R:ahead=4
echo "== done in $SECONDS s" >> $L
cat $L
