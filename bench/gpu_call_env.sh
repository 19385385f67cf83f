# Sourced by the bench/gpu_session*.sh device calls (from the repository root on the GPU
# machine): `source bench/gpu_call_env.sh NAME` sets O ($OUT), L (the call's log,
# $OUT/NAME.log), P (the packed binaries) and the library path for them, and starts the
# log with the device, the host's cores and the binaries' stamp. sanitize MEM RACE runs
# compute-sanitizer's memcheck and racecheck on gpu_tests filtered by MEM and RACE
# (either may be empty) and logs their summaries.
O=$OUT; L=$O/${1:?log name}.log
export LD_LIBRARY_PATH=$PWD/.gpu_deps/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ARBOLITO_SOURCE_DIR=$PWD
P=$PWD/.gpu_deps/prebuilt
# Extra binaries travel gzipped (the carry limit): unpack them beside the others.
for z in $P/*.gz; do [ -e "$z" ] && gunzip -f "$z" && chmod +x "${z%.gz}"; done
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; echo "cores: $(nproc)"
  cat $P/STAMP 2>/dev/null; } > $L
sanitize() {
  local t0=$SECONDS
  [ -n "$1" ] && timeout 90 compute-sanitizer --tool memcheck $P/gpu_tests --gtest_filter="$1" 2>&1 |
    grep -E 'ERROR SUMMARY|PASSED|FAILED' | head -4 >> $L
  [ -n "$2" ] && timeout 90 compute-sanitizer --tool racecheck $P/gpu_tests --gtest_filter="$2" 2>&1 |
    grep -E 'RACECHECK SUMMARY|PASSED|FAILED' | head -4 >> $L
  echo "sanitizers in $((SECONDS - t0)) s" >> $L
}
# run_tests [FILTER [PATTERN]]: gpu_tests (all, or filtered) into $O/tests.log, its
# verdicts (and lines matching PATTERN, an extended regex) into the log.
run_tests() {
  local t0=$SECONDS
  timeout 200 $P/gpu_tests ${1:+--gtest_filter="$1"} > $O/tests.log 2>&1; echo "gpu_tests rc $? in $((SECONDS - t0)) s" >> $L
  grep -E "^\[  (PASSED|FAILED)|^\[  FAILED|Failure${2:+|$2}" $O/tests.log | head -30 >> $L
}
# baseline BINARY: that arbolito as GPU_DEPS=/tmp/gd, for side-by-side busyring_table.sh runs.
baseline() {
  mkdir -p /tmp/gd/prebuilt && ln -sfn $PWD/.gpu_deps/lib /tmp/gd/lib && cp "$1" /tmp/gd/prebuilt/arbolito
}
# beside CELLS SOLVERS TFINAL NEW_TSV OLD_TSV: busyring rows (bench/busyring_table.sh) with
# this call's arbolito, then with the baseline's, one after the other.
beside() {
  bash bench/busyring_table.sh "$1" "$2" "$3" "$4"
  GPU_DEPS=/tmp/gd bash bench/busyring_table.sh "$1" "$2" "$3" "$5"
}
# phase_profile SOLVER...: the phase clock's lines (arbolito-prof from bench/resident_profile.sh,
# packed beside the others) for busyring 8,192 cells × 20 ms with each solver, into the log.
phase_profile() {
  sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": 8192/" examples/busyring.json > /tmp/b8192.json
  for s in "$@"; do
    echo "== profile $s" >> $L
    [ -x $P/arbolito-prof ] && timeout 60 $P/arbolito-prof run /tmp/b8192.json --tfinal 20 --solver $s --spikes-only \
      -o /tmp/o.h5 2>&1 | grep "resident profile" >> $L
  done
}
# log_tsvs NAME...: $O/NAME.tsv, each under a "== NAME" line, into the log.
log_tsvs() { local f; for f in "$@"; do echo "== $f" >> $L; cat $O/$f.tsv >> $L; done; }
# ab_check SOLVERS [SOLVERS_32K]: this binary against the baseline's (baseline BINARY
# first), busyring 8,192 cells × 50 ms twice with SOLVERS and 32,768 once with
# SOLVERS_32K (default: the resident step), into the log.
ab_check() {
  for r in 1 2; do beside "8192" "$1" 50 $O/new.tsv $O/base.tsv; done
  beside "32768" "${2:-gpu-fine:step=resident}" 50 $O/new32.tsv $O/base32.tsv
  log_tsvs new base new32 base32
}
# chain_bench ROWS...: bench/chain_latency_bench's cycles per row (packed beside the
# others), into the log.
chain_bench() {
  for r in "$@"; do echo "== chain bench, $r rows" >> $L; timeout 60 $P/chain_latency_bench --rows $r >> $L 2>&1; done
}
# ncu_resident: Nsight Compute on one 100-step epoch kernel of busyring 8,192 cells with
# the resident step (time, FP64 instruction counts for the FLOP rate, occupancy, warp
# stalls, memory) into $O/ncu.txt, its main lines into the log.
ncu_resident() {
  ncu --version | tail -1 >> $L
  sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": 8192/" examples/busyring.json > /tmp/b.json
  local M=sm__sass_thread_inst_executed_op_dfma_pred_on.sum,sm__sass_thread_inst_executed_op_dmul_pred_on.sum
  M=$M,sm__sass_thread_inst_executed_op_dadd_pred_on.sum,gpu__time_duration.sum,dram__bytes.sum
  timeout 110 ncu --clock-control none -k regex:resident_kernel --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis --metrics $M \
    $P/arbolito run /tmp/b.json --tfinal 8 --solver gpu-fine:step=resident --spikes-only -o /tmp/o.h5 > $O/ncu.txt 2>&1
  echo "ncu rc $? in $SECONDS s" >> $L
  grep -E "Duration|dfma|dmul|dadd|dram__bytes|Warp Cycles Per Issued|Avg. Active Threads|Stall|Achieved Occupancy|Theoretical Occupancy|Block Limit|Registers Per|L2 Hit|L1/TEX Hit|DRAM Throughput|Compute \(SM\)" $O/ncu.txt | head -40 >> $L
}
# variants SOLVERS_8K SOLVERS_32K: busyring × 50 ms with this call's arbolito, 8,192 cells
# twice with SOLVERS_8K and 32,768 once with SOLVERS_32K, into the log.
variants() {
  for r in 1 2; do bash bench/busyring_table.sh "8192" "$1" 50 $O/v8k.tsv; done
  bash bench/busyring_table.sh "32768" "$2" 50 $O/v32k.tsv
  cat $O/v8k.tsv $O/v32k.tsv >> $L
}
# final_table: the session's closing busyring table, 200 ms, into the log: the resident
# step at 1,024 / 8,192 / 32,768 cells, streaming gpu-fine at 8,192 / 32,768, gpu-cell at
# 32,768; then Arbor 0.12's GPU busyring (.arbor-gpu) at 1,024 and 8,192, and at 32,768
# with what is left of a 580-s call.
final_table() {
  local t0=$SECONDS R=gpu-fine:step=resident left
  bash bench/busyring_table.sh "1024 8192" "$R" 200 $O/table.tsv
  bash bench/busyring_table.sh "8192" "gpu-fine" 200 $O/table.tsv
  bash bench/busyring_table.sh "32768" "$R gpu-fine gpu-cell" 200 $O/table.tsv
  echo "arbolito table in $((SECONDS - t0)) s" >> $L; cat $O/table.tsv >> $L
  t0=$SECONDS
  OUT=/tmp/arb RUN_TIMEOUT=120 timeout 150 bash .arbor-gpu/run.sh 1024 8192 > /tmp/arb.log 2>&1; echo "arbor 1024 8192 rc $? in $((SECONDS - t0)) s" >> $L
  cp /tmp/arb/arbor_busyring_summary.tsv $O/arbor_small.tsv 2>/dev/null; cat /tmp/arb/arbor_busyring_summary.tsv >> $L 2>/dev/null
  t0=$SECONDS; left=$((580 - SECONDS))
  OUT=/tmp/arb32 RUN_TIMEOUT=$left timeout $left bash .arbor-gpu/run.sh 32768 > /tmp/arb32.log 2>&1; echo "arbor 32768 rc $? in $((SECONDS - t0)) s (allowed $left)" >> $L
  grep -E "^--- " /tmp/arb32.log | tail -6 >> $L; cp /tmp/arb32/arbor_busyring_summary.tsv $O/arbor_32768.tsv 2>/dev/null
  cat /tmp/arb32/arbor_busyring_summary.tsv >> $L 2>/dev/null; tail -5 /tmp/arb32.log >> $L
}
# same_outputs A B SOLVER...: busyring 256 cells × 50 ms with soma traces
# (bench/models/busyring64.json) run by $P/A and by $P/B with each solver; whether each
# pair of HDF5 files is byte-identical, into the log.
same_outputs() {
  local a=$1 b=$2 s; shift 2
  sed -E -e 's/"num-cells": *[0-9]+/"num-cells": 256/' -e 's/"record": *false/"record": true/' \
    bench/models/busyring64.json > /tmp/rec.json
  for s in "$@"; do
    $P/$a run /tmp/rec.json --tfinal 50 --solver $s -o /tmp/a.h5 > /dev/null 2>&1
    $P/$b run /tmp/rec.json --tfinal 50 --solver $s -o /tmp/b.h5 > /dev/null 2>&1
    cmp -s /tmp/a.h5 /tmp/b.h5 && echo "$a and $b, $s: outputs byte-identical ($(stat -c %s /tmp/a.h5) bytes)" >> $L ||
      echo "$a and $b, $s: outputs DIFFER" >> $L
  done
}
# variant_deps DIR BINARY: DIR a GPU_DEPS folder for busyring_table.sh whose arbolito is
# $P/BINARY (a variant packed beside the others).
variant_deps() { mkdir -p $1/prebuilt && ln -sfn $PWD/.gpu_deps/lib $1/lib && cp $P/$2 $1/prebuilt/arbolito; }
# edd_check KERNELS: gpu-branch's GPU tests; whole-run outputs of EDD (uncut, cut 8, cut 32)
# and the fold against $P/arbolito-ea1928f's; branch_bench at 256, 2,560 and 25,600 cells
# (multi, deep) with gpu-cell, the fold, EDD and EDD cut 32; Nsight Compute's time and
# bytes of EDD's first KERNELS kernels (one solve, deep, 25,600 cells); into the log.
edd_check() {
  local t0=$SECONDS
  run_tests 'GpuBranch*'
  same_outputs arbolito arbolito-ea1928f gpu-branch:coupling=edd gpu-branch:coupling=edd:cut=8 \
    gpu-branch:coupling=edd:cut=32 gpu-branch:coupling=fold
  timeout 200 $P/branch_bench --cells 256,2560,25600 --sets multi,deep --reps 7 --variants gpu-cell,fold,edd,edd-cut32 \
    --tsv $O/branch.tsv > $O/branch.out 2>&1
  echo "branch_bench rc $? in $((SECONDS - t0)) s" >> $L
  grep -E "cells .* CVs" $O/branch.out >> $L
  timeout 120 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum \
    -k regex:'edd_' --launch-count $1 $P/branch_bench --cells 25600 --sets deep --variants edd --reps 1 > $O/ncu.txt 2>&1
  echo "ncu rc $?" >> $L
  grep -E "edd_|duration|bytes|sectors" $O/ncu.txt | sed -E 's/\(int, .*\) \(/(/' >> $L
}
# branch_study [BUDGET_S]: branch_bench's whole study (every set and variant, 256 to 25,600
# cells; sets past BUDGET_S seconds, default 200, skipped) into $O/study.tsv and
# $O/study_summary.txt, the summary into the log.
branch_study() {
  local t0=$SECONDS budget=${1:-200}
  timeout $((budget + 30)) $P/branch_bench --cells 256,2560,25600 --reps 7 --budget-s $budget --tsv $O/study.tsv \
    --summary $O/study_summary.txt > $O/study.out 2>&1
  echo "study rc $? in $((SECONDS - t0)) s" >> $L
  cat $O/study_summary.txt >> $L
}
# branch_busyring: busyring 1,024 and 8,192 cells × 200 ms with gpu-branch EDD and the fold,
# then Arbor 0.12's GPU busyring (.arbor-gpu) at both sizes, into the log.
branch_busyring() {
  local t0=$SECONDS
  bash bench/busyring_table.sh "1024 8192" "gpu-branch:coupling=edd gpu-branch:coupling=fold" 200 $O/busy.tsv
  echo "busyring in $((SECONDS - t0)) s" >> $L; cat $O/busy.tsv >> $L
  t0=$SECONDS
  OUT=/tmp/arb RUN_TIMEOUT=120 timeout 150 bash .arbor-gpu/run.sh 1024 8192 > /tmp/arb.log 2>&1
  echo "arbor rc $? in $((SECONDS - t0)) s" >> $L
  cp /tmp/arb/arbor_busyring_summary.tsv $O/arbor.tsv 2>/dev/null; cat /tmp/arb/arbor_busyring_summary.tsv >> $L 2>/dev/null
}
# tile_study VARIANTS CELLS [TILES]: EDD by tiles: the gpu-branch GPU tests, memcheck and
# racecheck on the tiles' test; whole runs (busyring 256 cells × 50 ms, recorded) compared
# between the CPU, untiled and tiled EDD; branch_bench at CELLS with VARIANTS (one line
# each, into the log); busyring 1,024 cells × 200 ms with untiled EDD and EDD by tiles of
# each of TILES CVs (default "1024 4000"; "none": no busyring).
tile_study() {
  run_tests 'GpuBranch*' 'tile'
  sanitize 'GpuBranch.EddTilesSameBitsAsUntiled' 'GpuBranch.EddTilesSameBitsAsUntiled'
  sed -E -e 's/"num-cells": *[0-9]+/"num-cells": 256/' -e 's/"record": *false/"record": true/' \
    bench/models/busyring64.json > /tmp/rec.json
  timeout 120 $P/arbolito compare /tmp/rec.json --tfinal 50 -o /tmp/cmp \
    --solvers cpu,gpu-branch:coupling=edd,gpu-branch:coupling=edd:tile=1024,gpu-branch:coupling=edd:tile=4000 \
    > $O/compare.txt 2>&1
  echo "compare rc $?" >> $L; grep -A6 "^solver " $O/compare.txt | head -7 >> $L
  local t0=$SECONDS
  timeout 220 $P/branch_bench --cells $2 --reps 7 --budget-s 200 --tsv $O/tiles.tsv --variants $1 > $O/tiles.out 2>&1
  echo "branch_bench rc $? in $((SECONDS - t0)) s" >> $L
  grep -E "cells" $O/tiles.out | awk '{printf "%-6s %6s %-14s %8s ns/CV %7s floor\n", $1, $2, $6, $11, $13}' >> $L
  [ "${3:-}" = none ] && return
  local s="gpu-branch:coupling=edd" t
  for t in ${3:-1024 4000}; do s="$s gpu-branch:coupling=edd:tile=$t"; done
  t0=$SECONDS
  bash bench/busyring_table.sh "1024" "$s" 200 $O/busy.tsv
  echo "busyring in $((SECONDS - t0)) s" >> $L; cat $O/busy.tsv >> $L
}
