#!/usr/bin/env bash
# Fourth device call of the ninth session: the GPU tests touched by the session (events
# packed ahead on the exchange's thread, split on by default), then busyring 1,024 and
# 8,192 cells × 200 ms with every GPU solver and auto (bench/busyring_table.sh), and
# Arbor 0.12's GPU busyring in the same call. Log: $OUT/s9d.log, rows $OUT/table.tsv.
set -u
source bench/gpu_call_env.sh s9d
run_tests 'GpuCellGroup.*:GpuFineGroup.*:GpuResidentGroup.*:EventQueue*'
t0=$SECONDS
bash bench/busyring_table.sh "1024 8192" "gpu-fine:step=resident gpu-fine gpu-branch:coupling=fold gpu-branch:coupling=edd gpu-cell auto" 200 $O/table.tsv
echo "table in $((SECONDS - t0)) s" >> $L; column -t $O/table.tsv >> $L
t0=$SECONDS
OUT=/tmp/arb timeout 200 bash .arbor-gpu/run.sh 1024 8192 > /tmp/arb.log 2>&1; echo "arbor rc $? in $((SECONDS - t0)) s" >> $L
grep -E "^--- " /tmp/arb.log | tail -12 >> $L; cp /tmp/arb/arbor_busyring_summary.tsv $O/ 2>/dev/null; cat /tmp/arb/arbor_busyring_summary.tsv >> $L 2>/dev/null
echo "== done in $SECONDS s" >> $L
cat $L
