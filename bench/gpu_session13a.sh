#!/usr/bin/env bash
# Call 13a: the elimination on continuants (solvers/fine_sweeps.hpp: the chain from row to
# row one multiply-add, each row's reciprocal off it), for streaming gpu-fine and the
# resident step alike. Against d4ae0c6's binary (arbolito-base): every GPU test (resident
# against streaming gpu-fine bit for bit, both against the host within their
# tolerances), the chain bench (cycles per row of the production sweeps), busyring 8,192
# cells × 50 ms twice and 32,768 once beside the base, the phase clock, memcheck and
# racecheck on the resident smoke test. Then the heads variant (ARBOLITO_FINE_HEADS,
# built on the continuants): same bits as the default (outputs packed for h5diff here)
# and its times. Pack: GPU_PACK_BINS="arbolito gpu_tests chain_latency_bench" bash
# bench/gpu_pack.sh build-gpu; arbolito-base (d4ae0c6), arbolito-heads and arbolito-prof
# (bench/resident_profile.sh) stripped and gzipped beside them. Log: $OUT/cont.log.
# Its code (the pure continuant: f, g and the folds from pb, pa and q; and the heads
# variant ARBOLITO_FINE_HEADS) was never committed: call 13b's replaced the first (13a's
# failed the mixed-sizes model at 5.3e-6 mV), a05ca17 removed the second (slower).
set -u
source bench/gpu_call_env.sh cont
run_tests '' 'max \|dv\||worst'
chain_bench 64 16
sanitize 'GpuResidentGroup.SanitizerSmoke' 'GpuResidentGroup.SanitizerSmoke'
R=gpu-fine:step=resident
baseline $P/arbolito-base
ab_check "$R $R:ahead=4 gpu-fine"
phase_profile $R
PACK=$O/heads_outputs.tgz OUTDIR=/tmp/heads_id bash tools/check_identical.sh $P/arbolito $P/arbolito-heads \
  $R $R:ahead=4 >> $L 2>&1
cp $P/arbolito $P/arbolito-default && cp $P/arbolito-heads $P/arbolito
echo "== heads (beside 'new' above)" >> $L
variants "$R $R:ahead=4" "$R"
echo "== done in $SECONDS s" >> $L
cat $L
