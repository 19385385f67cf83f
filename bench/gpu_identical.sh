#!/usr/bin/env bash
# Device half of a bit-identity check between two arbolito binaries on a GPU solver: runs
# the examples, a 64-cell busyring (50 ms, traces) and a 1,024-cell busyring (200 ms,
# spikes) with each binary and packs the HDF5 files into $OUT/identical.tgz; on a machine
# with HDF5's tools, unpack it and h5diff the pairs (tools/check_identical.sh does the
# same for CPU solvers in one go).
# Usage: bench/gpu_identical.sh OLD_BIN NEW_BIN "OLD_SOLVER_ARGS" "NEW_SOLVER_ARGS"
set -uo pipefail
OLD=$1; NEW=$2; OA=$3; NA=$4
O=$(mktemp -d)
sed -E 's/"num-cells": *[0-9]+/"num-cells": 64/' examples/busyring.json > "$O/busyring64.json"
cp examples/busyring.json "$O/busyring1024.json"
for m in examples/ring.json examples/single_cell.json examples/ball_and_stick.json "$O/busyring64.json" "$O/busyring1024.json"; do
  name=$(basename "$m" .json); extra=()
  [ "$name" = busyring64 ] && extra=(--tfinal 50)
  [ "$name" = busyring1024 ] && extra=(--spikes-only)
  $OLD run "$m" $OA "${extra[@]}" -o "$O/$name.old.h5" --log-level warn || echo "old binary failed on $name"
  $NEW run "$m" $NA "${extra[@]}" -o "$O/$name.new.h5" --log-level warn || echo "new binary failed on $name"
done
tar czf "${OUT:-/tmp}/identical.tgz" -C "$O" $(cd "$O" && ls *.h5)
ls -la "$O"
