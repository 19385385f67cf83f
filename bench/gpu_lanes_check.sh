#!/usr/bin/env bash
# Device call of the seventh session (bench/RESULTS.md, "Seventh session"): the GPU suite,
# compute-sanitizer on the blow-up and point-sum tests, busyring 1,024 on every GPU solver
# with Arbor's GPU busyring beside, gpu_step_bench's point sums, and omp on every core
# (lanes=1, lanes=auto, and the pre-lanes binary .gpu_deps/prebuilt/arbolito-base if
# packed) with Arbor's CPU busyring beside. Binaries from bench/gpu_pack.sh; carry
# .gpu_deps and .arbor-gpu. Log: $OUT/dev2.log.
set -u
O=$OUT; L=$O/dev2.log
export LD_LIBRARY_PATH=$PWD/.gpu_deps/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ARBOLITO_SOURCE_DIR=$PWD
P=$PWD/.gpu_deps/prebuilt
nvidia-smi --query-gpu=name --format=csv,noheader > $L; cat $P/STAMP >> $L
echo "== gpu tests" >> $L
timeout 300 $P/gpu_tests 2>&1 | grep -E '^\[  (PASSED|FAILED) |FAILED|Failure|Expected|Which is|actual' | head -40 >> $L
echo "== memcheck/racecheck blow-up + point sums" >> $L
for tool in memcheck racecheck; do timeout 150 compute-sanitizer --tool $tool $P/gpu_tests --gtest_filter='*BlowUp*:GpuCellGroup.ManySynapsesOnOneCv' 2>&1 | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' | head -5 >> $L; done
sed -E 's/"num-cells": *[0-9]+/"num-cells": 1024/' examples/busyring.json > /tmp/b1024.json
echo "== gpu busyring 1024 x 200 ms" >> $L
for s in gpu-fine "gpu-fine:step=resident" gpu-cell; do timeout 60 $P/arbolito run /tmp/b1024.json --solver $s --spikes-only --timings json -o /tmp/o.h5 2>/dev/null | tail -1 | python3 -c "import json,sys; d=json.load(sys.stdin); print('$s', {k: d[k] for k in ['run','ns_per_cv_step','n_spikes','setup']})" >> $L; done
OUT=/tmp/arb timeout 150 bash .arbor-gpu/run.sh 1024 > /tmp/arb.log 2>&1; grep -E "^--- " /tmp/arb.log >> $L
echo "== gpu_step_bench point sums" >> $L
timeout 120 $P/gpu_step_bench --cells 1024 --synapses 1000 --tfinal 10 --solve-cells 256 --solve-tfinal 2 > $O/step_bench.log 2>&1; tail -6 $O/step_bench.log >> $L
echo "== omp 16 cores busyring 1024 x 50 ms" >> $L
for r in 1 2; do for s in "omp:lanes=1" omp base; do B=$P/arbolito; S=$s; [ $s = base ] && { B=$P/arbolito-base; S=omp; }; timeout 60 $B run /tmp/b1024.json --tfinal 50 --solver $S --threads $(nproc --all) --spikes-only --timings json -o /tmp/o.h5 2>/dev/null | tail -1 | python3 -c "import json,sys; d=json.load(sys.stdin); print('$s', {k: round(d[k],4) for k in ['run','ns_per_cv_step','n_spikes']})" >> $L; done; done
OUT=/tmp/arb2 timeout 150 bash .arbor-gpu/run.sh cpu1024 > /tmp/arb2.log 2>&1; grep -E "^--- " /tmp/arb2.log >> $L
echo "== done" >> $L
cat $L
