#!/usr/bin/env bash
# Last device call of the ninth session: the whole GPU suite and compute-sanitizer on the
# final binaries; busyring 8,192 cells × 200 ms on the resident step with blocks launched
# longest first (arbolito, commit b3afe63: 1 % slower, reverted) against the previous
# call's binary (arbolito-prev, launch in block order, what main runs), streaming gpu-fine after its schedule fix, 1,024 cells; the 16 host
# cores: omp with and without lanes against Arbor's CPU busyring. Log: $OUT/s9f.log.
set -u
source bench/gpu_call_env.sh s9f
run_tests
sanitize 'GpuFine.*:GpuResidentGroup.SanitizerSmoke:GpuCellGroup.PreparedEventsSameBits' 'GpuResidentGroup.SanitizerSmoke:GpuFine.SameBitsEveryRun'
baseline $P/arbolito-prev
beside "8192" "gpu-fine:step=resident" 200 $O/table.tsv $O/table_prev.tsv
bash bench/busyring_table.sh "8192" "gpu-fine:step=resident gpu-fine" 200 $O/table.tsv
bash bench/busyring_table.sh "1024" "gpu-fine:step=resident gpu-fine" 200 $O/table.tsv
cat $O/table.tsv $O/table_prev.tsv >> $L
echo "== omp x 16, busyring 1,024 x 50 ms" >> $L
sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": 1024/" examples/busyring.json > /tmp/b1024.json
for r in 1 2; do for s in "omp" "omp:lanes=1"; do
  OMP_NUM_THREADS=16 timeout 60 $P/arbolito run /tmp/b1024.json --tfinal 50 --solver $s --threads 16 --spikes-only --timings json -o /tmp/o.h5 2>/dev/null | tail -1 |
    python3 -c "import json,sys; d=json.load(sys.stdin); print('$s run %.3f ns %.4f spikes %d setup %.2f' % (d['run'], d['ns_per_cv_step'], d['n_spikes'], d['setup']))" >> $L
done; done
t0=$SECONDS
OUT=/tmp/arbc timeout 120 bash .arbor-gpu/run.sh cpu1024 > /tmp/arbc.log 2>&1; echo "arbor cpu rc $? in $((SECONDS - t0)) s" >> $L
grep -E "^--- " /tmp/arbc.log | tail -3 >> $L
echo "== done in $SECONDS s" >> $L
cat $L
