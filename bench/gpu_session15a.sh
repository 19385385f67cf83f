#!/usr/bin/env bash
# Call 15a: HEAD's GPU tests (GpuReciprocal.* first ran here: written after session 14's
# device budget was spent), then a timeline of the resident run (a diagnostic build whose
# engine prints a timestamp at each stage of Simulation::run and of the GPU group's epoch
# when ARBOLITO_TRACE is set; not committed, and replaced by `arbolito run --timeline`,
# which records the same stages): busyring 32,768 and 8,192 cells × 50 ms.
# Where does the 0.1 s a run beyond the kernel go (call 14s)? Pack: arbolito (trace
# build), gpu_tests. Log: $OUT/trace15a.log, timelines $OUT/trace_N.txt.
set -u
source bench/gpu_call_env.sh trace15a
run_tests 'GpuReciprocal.*'
run_tests
for n in 32768 8192; do
  sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": $n/" examples/busyring.json > /tmp/b$n.json
  ARBOLITO_TRACE=1 $P/arbolito run /tmp/b$n.json --tfinal 50 --solver gpu-fine:step=resident --spikes-only \
    --timings json -o /tmp/o.h5 > $O/trace_$n.txt 2>&1
  tail -1 $O/trace_$n.txt >> $L
done
echo "== done in $SECONDS s" >> $L
cat $L
