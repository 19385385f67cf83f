#!/usr/bin/env bash
# Last device call of the tenth session. (1) The whole GPU suite and the sanitizers on the
# final binary (the resident step on pointers known to be shared where its solve's arrays
# are staged). (2) Resident busyring 8,192 cells × 50 ms against arbolito-old (the
# binary of calls 10a-10f's baseline: generic pointers), and the per-phase profile
# (arbolito-prof). (3) The final table, 200 ms, with the faster binary whose tests pass:
# resident at 1,024 / 8,192 / 32,768 cells, streaming gpu-fine at 8,192 and 32,768,
# gpu-cell at 32,768, Arbor 0.12's GPU busyring beside them in this call.
# Log: $OUT/s10h.log.
set -u
source bench/gpu_call_env.sh s10h
mkdir -p /tmp/gd/prebuilt && ln -sfn $PWD/.gpu_deps/lib /tmp/gd/lib
gunzip -c $P/arbolito-old.gz > /tmp/gd/prebuilt/arbolito && gunzip -c $P/arbolito-prof.gz > /tmp/arbolito-prof && chmod +x /tmp/gd/prebuilt/arbolito /tmp/arbolito-prof
run_tests
sanitize 'GpuResidentGroup.SanitizerSmoke:GpuEventQueue.*' 'GpuResidentGroup.SanitizerSmoke'
beside "8192" "gpu-fine:step=resident" 50 $O/ab_new.tsv $O/ab_old.tsv
echo "== A/B 8,192 x 50 ms: new, then old" >> $L; cat $O/ab_new.tsv $O/ab_old.tsv >> $L
sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": 8192/" examples/busyring.json > /tmp/b8192.json
timeout 60 /tmp/arbolito-prof run /tmp/b8192.json --tfinal 20 --solver gpu-fine:step=resident --spikes-only -o /tmp/o.h5 2>&1 | grep "resident profile" >> $L
# The new binary for the table if no test but the known one failed and it is not slower.
bad=$(grep -E '^\[  FAILED  \] [A-Za-z]' $O/tests.log | grep -v 'RingAndBusyringMatchCpu' | grep -vc 'listed below')
kn=$(tail -1 $O/ab_new.tsv | cut -f5); ko=$(tail -1 $O/ab_old.tsv | cut -f5)
use=new
[ "$bad" != "0" ] && use=old
grep -q '^\[  PASSED  \]' $O/tests.log || use=old
python3 -c "import sys; sys.exit(0 if float('$kn') <= float('$ko') else 1)" 2>/dev/null || use=old
D=$PWD/.gpu_deps; [ $use = old ] && D=/tmp/gd
echo "== table with the $use binary (other failures: $bad; kernels $kn vs $ko)" >> $L
t0=$SECONDS
GPU_DEPS=$D bash bench/busyring_table.sh "1024 8192" "gpu-fine:step=resident" 200 $O/table.tsv
GPU_DEPS=$D bash bench/busyring_table.sh "8192" "gpu-fine" 200 $O/table.tsv
GPU_DEPS=$D bash bench/busyring_table.sh "32768" "gpu-fine:step=resident gpu-fine gpu-cell" 200 $O/table.tsv
echo "table in $((SECONDS - t0)) s" >> $L; cat $O/table.tsv >> $L
t0=$SECONDS
OUT=/tmp/arb timeout 100 bash .arbor-gpu/run.sh 1024 8192 > /tmp/arb.log 2>&1; echo "arbor rc $? in $((SECONDS - t0)) s" >> $L
cat /tmp/arb/arbor_busyring_summary.tsv >> $L 2>/dev/null
t0=$SECONDS; left=$((585 - SECONDS))
OUT=/tmp/arb2 RUN_TIMEOUT=$left timeout $left bash .arbor-gpu/run.sh 32768 > /tmp/arb2.log 2>&1; echo "arbor 32768 rc $? in $((SECONDS - t0)) s" >> $L
cat /tmp/arb2/arbor_busyring_summary.tsv >> $L 2>/dev/null
echo "== done in $SECONDS s" >> $L
cat $L
