#!/usr/bin/env bash
# Sixth device call of the ninth session: the CPU lanes on one core of the H100 host (an
# Intel Xeon; the development machine that measured bench/RESULTS.md's "Ninth session:
# CPU lanes" was an AMD EPYC): this session's binary (x86-64-v3, AVX2 lanes) against the
# pre-lanes baseline 265c6a7 built the same way (.gpu_deps/prebuilt/arbolito-base),
# busyring 64 × 200 ms and 1,024 × 50 ms. Log: $OUT/s9g.log.
# Ninth session: killed at its 200-s limit before the table printed (one core of that host
# runs the 1,024-cell set for minutes): now 64 cells by default (CELLS="64 1024" TFINALS="200 50"
# for both, with a 600-s limit).
set -u
export LD_LIBRARY_PATH=$PWD/.gpu_deps/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
P=$PWD/.gpu_deps/prebuilt
L=$OUT/s9g.log
{ cat $P/STAMP; bash bench/cpu_lanes.sh --bin $P/arbolito --baseline $P/arbolito-base --cells "${CELLS:-64}" --tfinal "${TFINALS:-200}" \
    --reps 2 --lanes "1 4" --no-arbor; } > $L 2>&1
cp bench/out/cpu_lanes.jsonl $OUT/ 2>/dev/null
cat $L
