#!/usr/bin/env bash
# arbolito against NEURON (Debian's python3-neuron) on the same models, one thread each,
# handed over by `arbolito info --geometry`. Two tables:
#
# bench/vs_neuron.sh models [BUILD_DIR]
#   arbolito (solver cpu, one thread) and NEURON on the single cell and on a 64-cell busyring
#   without connections: median of 3 runs; then callgrind instructions per CV per step.
#
# bench/vs_neuron.sh busyring [--tfinal MS] [--reps N] [--build DIR] [--model M.json]
#   Arbor's busyring (64 cells; each gets its ring predecessor's spike plus
#   1,000 zero-weight connections from random cells, 1,001 in all, and carries Arbor's 1,001
#   unconnected expsyn, NEURON ExpSyns from the dump) for 200 ms at dt 0.025:
#   arbolito (solver cpu, one thread, no exchange thread) against NEURON on the same model,
#   handed over by `arbolito info --geometry`; spikes only.
#
#     --tfinal  shorter run for a smoke test (e.g. 20); default: the model's 200 ms
#     --reps    repetitions, medians reported (default 1: NEURON needs ~80 s per 200 ms)
#   NEURON runs twice: as it comes (row "neuron") and with CVode.cache_efficient(1) (row
#   "neuron-ce": contiguous node data, same spikes, several times faster on this model).
#   Prints one row per simulator and the spike agreement; files in bench/out/busyring64.*
#     wall_s   whole process (set-up, for NEURON reading the 18 MB dump; run; output)
#     run_s    integration only (arbolito's "run" timing; NEURON's psolve)
#     x        NEURON's time / arbolito's (wall, run)
#     ns/CV-step = run_s / (CVs · steps); CVs = NEURON's nodes (same count on both sides)
#     events%  share of arbolito's run in event delivery (--timings phases "events"),
#     exch%    and in turning spikes into events ("exchange")
set -euo pipefail
cd "$(dirname "$0")/.."

models_table() {
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
# 64 busyring cells without connections (hh soma, passive dendrites, one CV a segment).
cat > $out/busyring64_unconnected.json <<'JSON'
{
  "name": "busyring64_unconnected",
  "run": {"dt": 0.025, "tfinal": 200, "sample_dt": 0.1},
  "cells": [{
    "count": 64,
    "morphology": {"builder": "busyring", "depth": 10, "branch-probs": [1, 0.5], "compartments": [20, 2], "lengths": [200, 20]},
    "discretization": {"policy": "every_segment"},
    "ra": 100,
    "paint": [
      {"region": "soma", "mechanism": "hh"},
      {"region": "dend", "mechanism": "pas"}
    ],
    "detectors": [{"location": {"branch": 0, "x": 0.0}, "threshold": 10}]
  }]
}
JSON
row busyring64_unconnected $out/busyring64_unconnected.json

# Instructions per CV per step: callgrind on two run lengths; the difference removes set-up.
ir() {
  valgrind --tool=callgrind --callgrind-out-file=$out/cg.out $bin run $out/busyring64_unconnected.json \
    --spikes-only --tfinal "$1" -o $out/cg.h5 --log-level warn >/dev/null 2>$out/cg.log
  sed -n 's/.*Collected : *//p' $out/cg.log | awk '{print $1}'
}
i1=$(ir 1 | tr -d ,); i2=$(ir 2 | tr -d ,)
ncv=$($bin info $out/busyring64_unconnected.json | sed -n 's/^total CVs: //p')
steps=40
$py -c "i1,i2,c,s=$i1,$i2,$ncv,$steps; print(f'callgrind: {(i2-i1)/(c*s):.1f} instructions per CV per step (busyring64, solver cpu; Ir(2 ms) - Ir(1 ms) = {i2-i1} over {c} CVs x {s:.0f} steps)')"
}

busyring_table() {
build=build; model=bench/models/busyring64.json; tfinal=""; reps=1
while [ $# -gt 0 ]; do
  case $1 in
    --tfinal) tfinal=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    *) echo "usage: $0 busyring [--tfinal MS] [--reps N] [--build DIR] [--model M.json]" >&2; exit 2 ;;
  esac
done
bin=$build/app/arbolito
py=/usr/bin/python3
[ -x "$bin" ] || { echo "no arbolito binary at $bin (--build DIR)" >&2; exit 1; }
$py -c "import neuron, h5py, numpy" >/dev/null 2>&1 || { echo "NEURON (python3-neuron, h5py, numpy) missing for $py" >&2; exit 1; }
export OMP_NUM_THREADS=1
out=bench/out; mkdir -p $out
name=$(basename "$model" .json)
geom=$out/$name.geom.json

$bin info "$model" --geometry $geom --log-level warn >/dev/null
arb_extra=()
if [ -n "$tfinal" ]; then
  # `info` has no --tfinal: shorten the dump's run instead (NEURON reads nothing else).
  $py -c "import json,sys; d=json.load(open(sys.argv[1])); d['run']['tfinal']=float(sys.argv[2]); json.dump(d, open(sys.argv[3], 'w'))" \
    $geom "$tfinal" $out/$name.t$tfinal.geom.json
  geom=$out/$name.t$tfinal.geom.json
  arb_extra=(--tfinal "$tfinal")
fi

now() { date +%s.%N; }
arb_json=(); nrn_json=(); nce_json=(); arb_wall=(); nrn_wall=(); nce_wall=()
for ((r = 1; r <= reps; r++)); do
  t0=$(now)
  arb_json+=("$($bin run "$model" --solver cpu --no-pipeline --spikes-only "${arb_extra[@]}" \
                 -o $out/$name.arb.h5 --timings json --log-level warn | tail -1)")
  t1=$(now)
  nrn_json+=("$($py tests/neuron/run_neuron.py $geom $out/$name.nrn.h5 --timings | tail -1)")
  t2=$(now)
  nce_json+=("$($py tests/neuron/run_neuron.py $geom $out/$name.nrn-ce.h5 --timings --cache-efficient | tail -1)")
  t3=$(now)
  arb_wall+=("$(echo "$t1 - $t0" | bc -l)"); nrn_wall+=("$(echo "$t2 - $t1" | bc -l)")
  nce_wall+=("$(echo "$t3 - $t2" | bc -l)")
done

$py - "$name" "$(printf '%s\n' "${arb_json[@]}")" "$(printf '%s\n' "${nrn_json[@]}")" \
      "$(printf '%s\n' "${nce_json[@]}")" "${arb_wall[*]}" "${nrn_wall[*]}" "${nce_wall[*]}" \
      $out/$name.arb.h5 $out/$name.nrn.h5 $out/$name.nrn-ce.h5 <<'EOF'
import json, statistics as st, sys
sys.path.insert(0, "tests")
import sonata_reader
name, aj, nj, cj, aw, nw, cw, arb_h5, nrn_h5, nce_h5 = sys.argv[1:]
med = st.median
A = [json.loads(l) for l in aj.splitlines()]
cv, steps = A[0]["n_cv"], A[0]["steps"]
a_run, a_wall = med([a["run"] for a in A]), med([float(x) for x in aw.split()])
print(f"{'busyring':10s} {'CVs':>7s} {'steps':>6s} {'wall_s':>8s} {'x':>6s} {'run_s':>8s} {'x':>6s} "
      f"{'ns/CV-step':>10s} {'setup_s':>8s} {'events%':>8s} {'exch%':>6s}")
print(f"{'arbolito':10s} {cv:7d} {steps:6d} {a_wall:8.2f} {1:6.2f} {a_run:8.2f} {1:6.2f} "
      f"{1e9 * a_run / (cv * steps):10.1f} {med([a['setup'] for a in A]):8.2f} "
      f"{100 * med([a['events'] / a['run'] for a in A]):8.2f} {100 * med([a['exchange'] / a['run'] for a in A]):6.2f}")
for label, js, ws in (("neuron", nj, nw), ("neuron-ce", cj, cw)):
    N = [json.loads(l) for l in js.splitlines()]
    if cv != N[0]["n_nodes"] or steps != N[0]["steps"]:
        sys.exit(f"mismatch: arbolito {cv} CVs x {steps} steps, NEURON {N[0]['n_nodes']} nodes x {N[0]['steps']} steps")
    n_run, n_wall = med([n["run_s"] for n in N]), med([float(x) for x in ws.split()])
    print(f"{label:10s} {cv:7d} {steps:6d} {n_wall:8.2f} {n_wall / a_wall:6.2f} {n_run:8.2f} {n_run / a_run:6.2f} "
          f"{1e9 * n_run / (cv * steps):10.1f} {med([n['setup_s'] for n in N]):8.2f}")
print(f"{name}: {A[0]['n_events']} events, {len(A)} rep(s), medians; one thread each")
a = sonata_reader.read(arb_h5)
for label, h5 in (("NEURON", nrn_h5), ("NEURON-ce", nce_h5)):
    n = sonata_reader.read(h5)
    same = len(a["spikes_t"]) == len(n["spikes_t"]) and (a["spikes_gid"] == n["spikes_gid"]).all()
    worst = float(abs(a["spikes_t"] - n["spikes_t"]).max()) if same and len(a["spikes_t"]) else float("nan")
    print(f"spikes: arbolito {len(a['spikes_t'])}, {label} {len(n['spikes_t'])}; "
          + (f"same gid order, worst |dt| {worst:.3g} ms" if same else "the trains DIFFER"))
EOF
}

case ${1:-} in
  models) shift; models_table "$@" ;;
  busyring) shift; busyring_table "$@" ;;
  *) echo "usage: $0 models [BUILD_DIR] | busyring [--tfinal MS] [--reps N] [--build DIR] [--model M.json]" >&2; exit 2 ;;
esac
