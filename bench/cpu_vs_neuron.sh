#!/usr/bin/env bash
# arbolito (solver cpu, one thread) against NEURON on the same models,
# same machine, one thread each; and callgrind instructions per CV per step.
# Usage: bench/cpu_vs_neuron.sh [BUILD_DIR]   (prints a table; details in bench/out/)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bin=$build/app/arbolito
out=bench/out; mkdir -p $out
py=/usr/bin/python3
export OMP_NUM_THREADS=1

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

row() {  # name model [extra arbolito args]
  local name=$1 model=$2; shift 2
  $bin info "$model" --geometry $out/$name.geom.json >/dev/null
  local arb=() nrn=() ncv steps
  for rep in 1 2 3; do
    j=$($bin run "$model" --spikes-only -o $out/$name.arb.h5 --timings json --log-level warn "$@" | tail -1)
    arb+=($(echo "$j" | $py -c 'import json,sys; print(json.load(sys.stdin)["run"])'))
    ncv=$(echo "$j" | $py -c 'import json,sys; print(json.load(sys.stdin)["n_cv"])')
    steps=$(echo "$j" | $py -c 'import json,sys; print(json.load(sys.stdin)["steps"])')
    k=$($py tests/neuron/run_neuron.py $out/$name.geom.json $out/$name.nrn.h5 --timings | tail -1)
    nrn+=($(echo "$k" | $py -c 'import json,sys; print(json.load(sys.stdin)["run_s"])'))
  done
  local a n
  a=$(printf '%s\n' "${arb[@]}" | median); n=$(printf '%s\n' "${nrn[@]}" | median)
  $py -c "a,n,c,s=$a,$n,$ncv,$steps; print(f'{\"$name\":26s} {c:9d} {s:8d} {a:10.3f} {n:10.3f} {n/a:8.2f} {1e9*a/(c*s):10.1f} {1e9*n/(c*s):10.1f}')"
}

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc --all) cores; NEURON $($py -c 'import neuron; print(neuron.__version__)' 2>/dev/null | tail -1)"
printf '%-26s %9s %8s %10s %10s %8s %10s %10s\n' model CVs steps arb_s nrn_s nrn/arb arb_ns/CVs nrn_ns/CVs
row single_cell examples/single_cell.json
row busyring64_unconnected bench/models/busyring64_unconnected.json

# Instructions per CV per step: callgrind on two run lengths; the difference removes set-up.
ir() {
  valgrind --tool=callgrind --callgrind-out-file=$out/cg.out $bin run bench/models/busyring64_unconnected.json \
    --spikes-only --tfinal "$1" -o $out/cg.h5 --log-level warn >/dev/null 2>$out/cg.log
  sed -n 's/.*Collected : *//p' $out/cg.log | awk '{print $1}'
}
i1=$(ir 1 | tr -d ,); i2=$(ir 2 | tr -d ,)
ncv=$($bin info bench/models/busyring64_unconnected.json | sed -n 's/^total CVs: //p')
steps=40
$py -c "i1,i2,c,s=$i1,$i2,$ncv,$steps; print(f'callgrind: {(i2-i1)/(c*s):.1f} instructions per CV per step (busyring64, solver cpu; Ir(2 ms) - Ir(1 ms) = {i2-i1} over {c} CVs x {s:.0f} steps)')"
