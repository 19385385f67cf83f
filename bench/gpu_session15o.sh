#!/usr/bin/env bash
# Call 15o, the session's last: every GPU test on the final code; memcheck on the event
# queue, the resident smoke test and EDD's staged junction rows, racecheck on the latter;
# issue 12's study again for bench/branch_bench_h100.tsv (EDD's junction solve changed
# after call 15j); busyring 1,024 and 8,192 cells × 200 ms with gpu-branch EDD and the
# fold, Arbor 0.12's GPU busyring beside. Pack: arbolito, gpu_tests (gzipped),
# branch_bench (stripped, gzipped); carry .gpu_deps and .arbor-gpu. Log: $OUT/last15o.log.
set -u
source bench/gpu_call_env.sh last15o
run_tests '' 'identical'
sanitize 'GpuEventQueue.*:GpuResidentGroup.SanitizerSmoke:GpuBranch.JunctionRowsInSharedAndDeviceMemory' \
  'GpuBranch.JunctionRowsInSharedAndDeviceMemory'
t0=$SECONDS
timeout 200 $P/branch_bench --cells 256,2560,25600 --reps 7 --budget-s 180 --tsv $O/study.tsv \
  --summary $O/study_summary.txt > $O/study.out 2>&1
echo "study rc $? in $((SECONDS - t0)) s" >> $L
cat $O/study_summary.txt >> $L
t0=$SECONDS
bash bench/busyring_table.sh "1024 8192" "gpu-branch:coupling=edd gpu-branch:coupling=fold" 200 $O/busy.tsv
echo "busyring in $((SECONDS - t0)) s" >> $L; cat $O/busy.tsv >> $L
t0=$SECONDS
OUT=/tmp/arb RUN_TIMEOUT=120 timeout 150 bash .arbor-gpu/run.sh 1024 8192 > /tmp/arb.log 2>&1; echo "arbor rc $? in $((SECONDS - t0)) s" >> $L
cp /tmp/arb/arbor_busyring_summary.tsv $O/arbor.tsv 2>/dev/null; cat /tmp/arb/arbor_busyring_summary.tsv >> $L 2>/dev/null
echo "== done in $SECONDS s" >> $L
cat $L
