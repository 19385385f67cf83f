#!/usr/bin/env bash
# (solve=lanes was reverted in 9baebe7: this call ran binaries of 136c996 / 1c30356.)
# Call 12b (twelfth session): the resident step's solve in lanes (solve=lanes:
# solvers/fine_lanes.hpp, solvers/gpu/fine_lanes.cuh; each thread its paths of branches,
# a branch as soon as its children are done, flags per branch instead of a barrier per
# level; host model: the longest path ~130 rows against 200-260 for the sum of the
# levels' longest branches). The fine and resident GPU tests (lanes variants: the same
# bits as streaming gpu-fine), the sanitizers on the resident smoke test (both solves),
# busyring 8,192 cells × 50 ms (twice) and 32,768, levels against lanes, and the phase
# clock of both. Log: $OUT/lanes.log.
set -u
source bench/gpu_call_env.sh lanes
run_tests 'Gpu*Fine*:GpuResident*:GpuCellGroup.PreparedEventsSameBits'
sanitize 'GpuResidentGroup.SanitizerSmoke' 'GpuResidentGroup.SanitizerSmoke'
R=gpu-fine:step=resident
variants "$R $R:solve=lanes $R:solve=lanes:ahead=4" "$R $R:solve=lanes"
phase_profile $R $R:solve=lanes
echo "== done in $SECONDS s" >> $L
cat $L
