#!/usr/bin/env bash
# busyring across threads and MPI ranks. The network of
# examples/busyring.json with num-cells 64 and synapses 1001 (1 ring + 1000 weightless
# connections per cell, and Arbor's 1001 unconnected synapses), spikes only, solver omp: 1 thread, 2 threads, 2 ranks of 1 thread.
# Usage: bench/busyring_scaling.sh [BUILD_DIR] [TFINAL_MS] [REPEATS]   (defaults: build 200 3)
#   e.g. bench/busyring_scaling.sh build-mpi 10 1   for a quick check
# Prints one row per configuration (medians over the repeats):
#   run_s      the run's wall time (slowest rank), without set-up
#   wall_s     the whole command, process start (and MPI start-up) included
#   ns/CV-step run_s per CV per time step
#   speedup    run_s of 1 thread / run_s
#   events     event handling share: phases.events / (run_s · threads · ranks); the phases
#              are summed over all cell groups of all threads and ranks, so this is the
#              share of each worker's run time spent delivering events
#   exch_s, exposed_s, mpi_s  the exchange's time, the part the cell update waited for, and
#              the MPI collectives in it (max over ranks)
#   (events, exch_s, exposed_s and mpi_s come from the last repeat)
# and checks that the three configurations wrote the same spikes, bit for bit.
#
# bench/busyring_scaling.sh epochs OLD_BIN NEW_BIN ...: the epoch loop's own cost.
# Epochs per second of a run made of many short epochs, where the epoch loop's own cost
# (handing the exchange to its thread, joining it) is a large part: busyring of CELLS
# cells (examples/busyring.json, 10 synapses a cell) with min-delay 2·dt, so that every
# epoch is one step, TFINAL ms, spikes only, solver cpu, pipelined; two arbolito binaries
# side by side, interleaved (old, new, old, new, ...), REPS rounds each, and each run's
# output compared with the first run's (h5diff where present, else the files' bytes).
#
# Usage: bench/busyring_scaling.sh epochs OLD_BIN NEW_BIN [CELLS=16] [TFINAL=200] [REPS=5] [RANKS=1]
#   RANKS > 1: under mpirun (Open MPI; --oversubscribe, OMP_NUM_THREADS=1).
# Prints per run: run s (the json's `run`), epochs, epochs/s; then the medians and new/old.
set -euo pipefail

epochs() {
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
}
if [ "${1:-}" = epochs ]; then shift; epochs "$@"; exit; fi

cd "$(dirname "$0")/.."
build=${1:-build}
tfinal=${2:-200}
reps=${3:-3}
bin=$build/app/arbolito
py=/usr/bin/python3
out=bench/out/busyring_scaling
mkdir -p $out
[[ -x $bin ]] || { echo "no $bin: build first (cmake -S . -B $build && make -C $build -j)" >&2; exit 1; }
# Open MPI will not start as root unless told (containers, CI).
if [[ $(id -u) -eq 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
mpirun=(mpirun)
if mpirun --version 2>/dev/null | grep -q "Open MPI"; then
  # More ranks than cores is allowed; no pinning, so that each rank's exchange thread
  # is not bound to the core its cell update runs on.
  mpirun+=(--oversubscribe --bind-to none)
fi

model=$out/busyring64.json
$py - examples/busyring.json $model <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["name"] = "busyring64"
m["network"].update({"num-cells": 64, "synapses": 1001, "record": False})
json.dump(m, open(sys.argv[2], "w"), indent=1)
PY

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
field() { $py -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$1" "$2"; }

declare -A RUN WALL ROWJSON
row() {  # label threads ranks
  local label=$1 threads=$2 ranks=$3 runs=() walls=() j t0 t1
  local cmd=("$bin" run "$model" --spikes-only --solver omp --threads "$threads" --tfinal "$tfinal"
             --timings json --log-level warn -o "$out/$label.h5")
  [[ $ranks -gt 1 ]] && cmd=("${mpirun[@]}" -np "$ranks" "${cmd[@]}")
  for ((k = 0; k < reps; ++k)); do
    t0=$(date +%s.%N)
    j=$(OMP_NUM_THREADS=$threads "${cmd[@]}" | tail -1)
    t1=$(date +%s.%N)
    runs+=("$(field "$j" run)")
    walls+=("$($py -c "print($t1 - $t0)")")
    ROWJSON[$label]=$j
  done
  RUN[$label]=$(printf '%s\n' "${runs[@]}" | median)
  WALL[$label]=$(printf '%s\n' "${walls[@]}" | median)
  echo "$j" >"$out/$label.json"
}

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc --all) cores; busyring 64 cells x 1001 synapses," \
     "${tfinal} ms, spikes only; median of $reps"
row omp1 1 1
row omp2 2 1
row mpi2 1 2
printf '%-22s %8s %8s %11s %8s %7s %8s %9s %8s %8s\n' config run_s wall_s ns/CV-step speedup events exch_s exposed_s mpi_s spikes
for label in omp1 omp2 mpi2; do
  case $label in omp1) name="omp, 1 thread"; w=1;; omp2) name="omp, 2 threads"; w=2;; mpi2) name="2 ranks x 1 thread"; w=2;; esac
  $py - "${ROWJSON[$label]}" "${RUN[$label]}" "${WALL[$label]}" "${RUN[omp1]}" "$w" "$name" <<'PY'
import json, sys
j = json.loads(sys.argv[1]); run, wall, base, workers, name = float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
ns = 1e9 * run / (j["n_cv"] * j["steps"])
print(f"{name:22s} {run:8.3f} {wall:8.3f} {ns:11.2f} {base / run:8.2f} {j['events'] / (j['run'] * workers):7.1%} "
      f"{j['exchange']:8.4f} {j['exchange_exposed']:9.4f} {j['mpi']:8.4f} {j['n_spikes']:8d}")
PY
done
same=yes
for label in omp2 mpi2; do
  $py tests/sonata_reader.py compare $out/omp1.h5 $out/$label.h5 --vtol 0 --ttol 0 >/dev/null || same=NO
done
echo "spikes identical across the three: $same (files and timings JSON in $out/)"
[[ $same == yes ]]
