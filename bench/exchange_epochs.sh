#!/usr/bin/env bash
# Epochs per second of a run made of many short epochs, where the epoch loop's own cost
# (handing the exchange to its thread, joining it) is a large part: busyring of CELLS
# cells (examples/busyring.json, 10 synapses a cell) with min-delay 2·dt, so that every
# epoch is one step, TFINAL ms, spikes only, solver cpu, pipelined; two arbolito binaries
# side by side, interleaved (old, new, old, new, ...), REPS rounds each, and each run's
# output compared with the first run's (h5diff where present, else the files' bytes).
#
# Usage: bench/exchange_epochs.sh OLD_BIN NEW_BIN [CELLS=16] [TFINAL=200] [REPS=5] [RANKS=1]
#   RANKS > 1: under mpirun (Open MPI; --oversubscribe, OMP_NUM_THREADS=1).
# Prints per run: run s (the json's `run`), epochs, epochs/s; then the medians and new/old.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OLD=${1:?old binary}; NEW=${2:?new binary}; CELLS=${3:-16}; TFINAL=${4:-200}; REPS=${5:-5}; RANKS=${6:-1}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
sed -E -e "s/\"num-cells\": *[0-9]+/\"num-cells\": $CELLS/" -e 's/"min-delay": *[0-9.]+/"min-delay": 0.05/' \
    -e 's/"synapses": *[0-9]+/"synapses": 10/' "$ROOT/examples/busyring.json" > "$T/model.json"
launch=()
[ "$RANKS" -gt 1 ] && launch=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
                             mpirun --oversubscribe --bind-to none -np "$RANKS")
echo "busyring $CELLS cells, 10 synapses a cell, min-delay 0.05 ms (one-step epochs), $TFINAL ms, cpu, $RANKS rank(s), $REPS rounds"
printf "%-4s %9s %8s %10s %s\n" bin run_s epochs epochs/s spikes
# h5diff (no tolerance) where HDF5's tools are, else the files' bytes.
same_outputs() { if command -v h5diff > /dev/null; then h5diff "$1" "$2" > /dev/null 2>&1; else cmp -s "$1" "$2"; fi; }
first=""
for r in $(seq "$REPS"); do
  for which in old new; do
    bin=$OLD; [ $which = new ] && bin=$NEW
    out="$T/$which.$r.h5"
    json=$("${launch[@]}" "$bin" run "$T/model.json" --tfinal "$TFINAL" --spikes-only --solver cpu --timings json \
             -o "$out" --log-level warn | tail -1)
    read -r run steps <<< "$(python3 -c 'import json,sys; j=json.loads(sys.argv[1]); print(j["run"], j["steps"])' "$json")"
    same="first"
    if [ -z "$first" ]; then first=$out
    elif same_outputs "$first" "$out"; then same="same spikes"; else same="DIFFERENT spikes"; fi
    printf "%-4s %9.3f %8d %10.0f %s\n" $which "$run" "$steps" "$(echo "$steps / $run" | bc -l)" "$same" | tee -a "$T/rows"
  done
done
python3 - "$T/rows" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = {w: statistics.median(float(r[3]) for r in rows if r[0] == w) for w in ("old", "new")}
print("median epochs/s: old %.0f, new %.0f, new/old %.3f" % (med["old"], med["new"], med["new"] / med["old"]))
PY
