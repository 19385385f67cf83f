#!/usr/bin/env bash
# Call 16o: why a tile's phases take 2-3x their dependent chains (call 16n): Nsight
# Compute's warp stall reasons (cycles per issued instruction, by reason), issue rate,
# occupancy and shared-memory bank conflicts of one edd_tiles solve, 25,600 multi-morphology
# cells, tiles of 1,024 CVs cut every 32. Pack: arbolito, branch_bench (gzipped). Log:
# $OUT/s16o.log.
set -u
source bench/gpu_call_env.sh s16o
ncu --version | tail -1 >> $L
R=smsp__average_warps_issue_stalled
M=${R}_barrier_per_issue_active.ratio,${R}_long_scoreboard_per_issue_active.ratio,${R}_short_scoreboard_per_issue_active.ratio
M=$M,${R}_mio_throttle_per_issue_active.ratio,${R}_math_pipe_throttle_per_issue_active.ratio,${R}_wait_per_issue_active.ratio
M=$M,${R}_lg_throttle_per_issue_active.ratio,${R}_not_selected_per_issue_active.ratio,${R}_selected_per_issue_active.ratio
M=$M,${R}_no_instruction_per_issue_active.ratio,${R}_dispatch_stall_per_issue_active.ratio,${R}_branch_resolving_per_issue_active.ratio
M=$M,${R}_drain_per_issue_active.ratio,${R}_membar_per_issue_active.ratio,${R}_sleeping_per_issue_active.ratio
M=$M,smsp__issue_active.avg.per_cycle_active,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed.sum
timeout 120 ncu --clock-control none -k regex:edd_tiles --launch-skip 2 --launch-count 1 --metrics $M \
  $P/branch_bench --cells 25600 --sets multi --reps 3 --variants edd-c32-t1024 > $O/ncu.txt 2>&1
echo "ncu rc $? in $SECONDS s" >> $L
grep -E "smsp__|sm__|gpu__|l1tex__" $O/ncu.txt >> $L
echo "== done in $SECONDS s" >> $L
cat $L
