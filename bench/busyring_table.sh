#!/usr/bin/env bash
# Whole busyring runs of several solvers side by side on the GPU machine, as one TSV row
# per (cells, solver): run time without set-up, the resident kernel's own time, set-up,
# ns per CV-step, spikes, events. Binaries from bench/gpu_pack.sh (.gpu_deps/prebuilt, or
# $GPU_DEPS/prebuilt); ARBOLITO: another arbolito binary; MODEL: another busyring model
# (default examples/busyring.json). bench/gpu_run.py's busyring steps run it.
# Usage: bash bench/busyring_table.sh "1024 8192" "gpu-cell gpu-fine ... auto" [TFINAL=200] [TSV]
#   (bench/busyring_solvers_h100.tsv is made from such rows; test_solver_auto reads it.)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
P=${GPU_DEPS:-$ROOT/.gpu_deps}/prebuilt
BIN=${ARBOLITO:-$P/arbolito}; MODEL=${MODEL:-$ROOT/examples/busyring.json}
export LD_LIBRARY_PATH=$P/../lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
CELLS=${1:?cells}; SOLVERS=${2:?solvers}; TFINAL=${3:-200}; TSV=${4:-/dev/stdout}
T=${TMPDIR:-/tmp}
[ -s "$TSV" ] || echo -e "cells\tsolver\ttfinal_ms\trun_s\tkernel_s\tsetup_s\tns_per_cv_step\tn_cv\tspikes\tevents\tchosen" >> "$TSV"
for n in $CELLS; do
  sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": $n/" "$MODEL" > "$T/busyring$n.json"
  for s in $SOLVERS; do
    timeout 300 "$BIN" run "$T/busyring$n.json" --tfinal "$TFINAL" --solver "$s" --spikes-only --timings json \
      -o "$T/busyring_table.h5" > "$T/bt.out" 2> "$T/bt.err"
    tail -1 "$T/bt.out" | python3 -c "
import json, sys
d = json.load(sys.stdin)
print('\t'.join(str(x) for x in ['$n', '$s', '$TFINAL', '%.4f' % d['run'], '%.4f' % d['fused'], '%.3f' % d['setup'],
      '%.5f' % d['ns_per_cv_step'], d['n_cv'], d['n_spikes'], d['n_events'], d['solver']]))" >> "$TSV" 2>/dev/null ||
      echo -e "$n\t$s\t$TFINAL\tfailed: $(tail -1 "$T/bt.err")" >> "$TSV"
  done
done
