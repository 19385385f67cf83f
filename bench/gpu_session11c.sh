#!/usr/bin/env bash
# Call 11c (eleventh session): a shorter chain per row of the elimination. The device
# reciprocal refined by one third-order step instead of two Newton steps (three
# multiply-adds after the approximation, not four), and the next row's pivot from u²
# computed ahead (dx' = dp − u²·(1/dx): the multiply f·u is off the chain). Changes the
# bits of every GPU solver (within one ulp per reciprocal). The whole GPU suite (with
# GpuReciprocal.WithinOneUlpOfDivision), sanitizers, then busyring against arbolito-base
# (call 11b's binary): 8,192 cells × 50 ms resident, streaming gpu-fine and gpu-cell;
# 32,768 resident; the phase clock. Log: $OUT/chain.log.
set -u
source bench/gpu_call_env.sh chain
run_tests "" "GpuReciprocal|info.*mixed sizes gpu-fine step=resident:|info.*busyring 1024"
sanitize 'GpuReciprocal.*:GpuResidentGroup.SanitizerSmoke' 'GpuResidentGroup.SanitizerSmoke'
R=gpu-fine:step=resident
baseline $P/arbolito-base
ab_check "$R gpu-fine gpu-cell"
phase_profile $R
echo "== done in $SECONDS s" >> $L
cat $L
