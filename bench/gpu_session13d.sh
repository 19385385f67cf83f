#!/usr/bin/env bash
# Call 13d: the resident step's sweeps pipelined (fine_sweeps.hpp, Pipelined: each chunk's
# loads and the elimination's predictions issued while the chunk before runs its chain;
# at 4 rows ahead, now the resident default), streaming gpu-fine unpipelined; the same
# bits at every ahead and form (FineLayout.EverySweepFormGivesTheSameBits on the host;
# on the GPU GpuResidentGroup.SameBitsAsStreaming now sets the resident step's 4 rows
# ahead, pipelined, against streaming's 8). Against d4ae0c6's binary (arbolito-base):
# the GPU tests, the chain bench (backward_pipe / forward_pipe: the resident sweeps),
# memcheck and racecheck on the resident smoke test, busyring 8,192 cells × 50 ms twice
# and 32,768 once beside the base, the phase clock. Pack as 13b. Log: $OUT/pipe.log.
# Its code (Pipelined in fine_sweeps.hpp and solve_levels: Rows/XRows chunks carried
# across iterations, chain<N, Next> computing the next chunk's predictions beside this
# one's) was never committed: slower than 13c's, a05ca17 keeps 13c's sweeps.
set -u
source bench/gpu_call_env.sh pipe
run_tests 'Gpu*Fine*:GpuResident*:GpuCellGroup.*:FineBench*' 'mixed sizes gpu-fine |mixed sizes gpu-fine step=resident:|busyring 64 gpu-fine :|identical'
chain_bench 64
sanitize 'GpuResidentGroup.SanitizerSmoke' 'GpuResidentGroup.SanitizerSmoke'
R=gpu-fine:step=resident
baseline $P/arbolito-base
ab_check "$R $R:ahead=8 gpu-fine" "$R $R:ahead=4"
phase_profile $R
echo "== done in $SECONDS s" >> $L
cat $L
