#!/usr/bin/env bash
# Are two arbolito binaries' outputs bit-identical? Runs the examples (ring, single cell,
# ball and stick) and a 64-cell busyring (50 ms, traces) with each binary and each solver,
# and compares the HDF5 files with h5diff (no tolerance: every trace value and spike time
# must agree).
# Usage: tools/check_identical.sh OLD_BIN NEW_BIN [SOLVER...]   (default solvers: cpu omp)
# Environment: OUTDIR (default /tmp/arbolito_identical), THREADS (omp, default 2),
# BIG=1 (also busyring 1,024 cells, 200 ms, spikes), PACK=FILE.tgz (no h5diff: pack the
# outputs into FILE, for a machine without HDF5's tools, e.g. the GPU machine; unpack and
# h5diff the *.old.h5 / *.new.h5 pairs elsewhere).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OLD=${1:?old binary}; NEW=${2:?new binary}; shift 2
SOLVERS=("$@"); ((${#SOLVERS[@]})) || SOLVERS=(cpu omp)
O=${OUTDIR:-/tmp/arbolito_identical}; mkdir -p "$O"
sed -E 's/"num-cells": *[0-9]+/"num-cells": 64/' "$ROOT/examples/busyring.json" > "$O/busyring64.json"
cp "$ROOT/examples/busyring.json" "$O/busyring1024.json"
models=("$ROOT/examples/ring.json" "$ROOT/examples/single_cell.json" "$ROOT/examples/ball_and_stick.json" "$O/busyring64.json")
[ -n "${BIG:-}" ] && models+=("$O/busyring1024.json")
fail=0
for s in "${SOLVERS[@]}"; do
  for m in "${models[@]}"; do
    name=$(basename "$m" .json); extra=()
    [ "$name" = busyring64 ] && extra=(--tfinal 50)
    [ "$name" = busyring1024 ] && extra=(--spikes-only)
    for which in old new; do
      bin=$OLD; [ $which = new ] && bin=$NEW
      "$bin" run "$m" --solver "$s" --threads "${THREADS:-2}" "${extra[@]}" -o "$O/$name.$s.$which.h5" --log-level warn \
        > /dev/null 2> "$O/$name.$s.$which.err" || { echo "FAIL $name $s: $which binary exited $?"; fail=1; }
    done
    [ -n "${PACK:-}" ] && continue
    if h5diff "$O/$name.$s.old.h5" "$O/$name.$s.new.h5" > "$O/$name.$s.diff" 2>&1; then
      echo "identical  $name  $s"
    else
      echo "DIFFERENT  $name  $s  ($O/$name.$s.diff)"; fail=1
    fi
  done
done
[ -n "${PACK:-}" ] && tar czf "$PACK" -C "$O" $(cd "$O" && ls *.old.h5 *.new.h5) && echo "packed into $PACK"
exit $fail
