#!/usr/bin/env bash
# Third device call of the tenth session: the resident step's arrays offered shared
# memory chain-first (rhs, d, folds, u, then v; v copied out each step where it stays in
# device memory), so that a 55 KiB budget keeps the solve in shared memory at four blocks
# per SM. Resident tests and sanitizers; busyring 8,192 and 32,768 cells × 50 ms at
# shared=72 (the default, three blocks) and 55/56 (four); gpu-fine's ahead=auto (4 rows
# at this size) against gpu-cell at 32,768. Log: $OUT/s10c.log.
set -u
source bench/gpu_call_env.sh s10c
run_tests 'GpuResidentGroup.*:GpuCellGroup.PreparedEventsSameBits:GpuEventQueue.*:GpuFineGroup.*' 'v in device|copied out'
sanitize 'GpuResidentGroup.SanitizerSmoke' 'GpuResidentGroup.SanitizerSmoke'
R=gpu-fine:step=resident
variants "$R $R:shared=55 $R:shared=56" "$R $R:shared=55 gpu-fine gpu-cell"
echo "== done in $SECONDS s" >> $L
cat $L
