#!/usr/bin/env bash
# Parareal (docs/parareal.md): iterations to converge and speed-up over
# sequential time stepping against cell size and slices. Every run is
#   arbolito run MODEL --solver SOLVER --threads T --tfinal 64 \
#     --time-parallel parareal:slices=K,coarse=C,verify=on[,coarse-solver=G] --timings json
# whose verify=on runs the sequential time stepping of the same solver in the same process
# (the baseline) and reports the largest difference of the traces and spike times to it.
# Models (written below, or PARAREAL_MODELS=DIR holding parareal_cable.json and
# parareal_cell.json): a ball-and-stick "cable" (hh soma, passive dendrite of 20 µm CVs)
# of 104, 1,004, 10,004 and 100,004 CVs, and the L5 pyramidal cell with axon
# (tests/data/morphologies) at extents of 20 µm (1,942 CVs) and 2 µm (15,084 CVs).
# Runs go from the smallest model up; once BUDGET_S seconds have passed no new run starts.
# COARSE_CVS: G's coarse-cvs factors to try (1: G on the fine CVs); only models of MIN_CV to
# MAX_CV CVs run.
# Usage: bench/parareal_study.sh ARBOLITO OUT.tsv LABEL SOLVER THREADS "K..." "C..." [BUDGET_S] [MAX_CV] [COARSE_SOLVER] ["F..."] [MIN_CV]
set -u
bin=$1; out=$2; label=$3; solver=$4; threads=$5; slices=$6; coarse=$7
budget=${8:-600}; max_cv=${9:-1000000}; gsolver=${10:-}; factors=${11:-1}; min_cv=${12:-0}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
models=${PARAREAL_MODELS:-$tmp}
if [[ -z "${PARAREAL_MODELS:-}" ]]; then
  cat > "$models/parareal_cable.json" <<'JSON'
{
  "name": "parareal_cable",
  "run": {"dt": 0.025, "tfinal": 50, "sample_dt": 0.1},
  "cells": [{
    "morphology": {"builder": "ball_and_stick", "soma_diameter": 12.6157, "dend_length": 20000, "dend_radius": 1.0},
    "discretization": {"policy": "max_extent", "extent": 20},
    "paint": [
      {"region": "soma", "mechanism": "hh"},
      {"region": "dend", "mechanism": "pas", "params": {"g": 1e-4, "e": -65}}
    ],
    "place": [
      {"location": "soma", "mechanism": "iclamp", "params": {"delay": 5, "dur": 40, "amp": 0.4}},
      {"location": {"branch": 1, "x": 0.001}, "mechanism": "iclamp", "params": {"delay": 20, "dur": 5, "amp": 0.2}}
    ],
    "detectors": [{"location": "soma", "threshold": -10}],
    "probes": [{"location": "soma"}, {"location": {"branch": 1, "x": 0.01}}, {"location": {"branch": 1, "x": 0.5}}]
  }]
}
JSON
  cat > "$models/parareal_cell.json" <<JSON
{
  "name": "parareal_cell",
  "run": {"dt": 0.025, "tfinal": 50, "sample_dt": 0.1},
  "cells": [{
    "morphology": {"swc": "$root/tests/data/morphologies/l5_pyramidal_with_axon.swc"},
    "discretization": {"policy": "max_extent", "extent": 20},
    "v_init": -65,
    "paint": [
      {"region": "soma", "mechanism": "hh"},
      {"region": "axon", "mechanism": "hh"},
      {"region": "dend", "mechanism": "pas", "params": {"g": 5e-5, "e": -65}},
      {"region": "apic", "mechanism": "pas", "params": {"g": 5e-5, "e": -65}}
    ],
    "place": [{"location": "soma", "mechanism": "iclamp", "params": {"delay": 5, "dur": 40, "amp": 1.0}}],
    "detectors": [{"location": "soma", "threshold": -10}],
    "probes": [{"location": "soma"}, {"location": {"branch": 1, "x": 0.5}}]
  }]
}
JSON
fi
start=$SECONDS
[[ -s "$out" ]] || printf 'device\tsolver\tthreads\tmodel\tn_cv\tslices\tcoarse\tcoarse_solver\titerations\tsequential_s\tparareal_s\tspeedup\tfine_s\tcoarse_s\tmax_trace_diff_mV\tmax_spike_diff_ms\tspikes\tspikes_sequential\tcoarse_cvs\tn_cv_coarse\n' > "$out"
cases=(
  "cable 104 parareal_cable.json cells[0].morphology.dend_length=2000"
  "cable 1004 parareal_cable.json cells[0].morphology.dend_length=20000"
  "l5_cell 1942 parareal_cell.json cells[0].discretization.extent=20"
  "cable 10004 parareal_cable.json cells[0].morphology.dend_length=200000"
  "l5_cell 15084 parareal_cell.json cells[0].discretization.extent=2"
  "cable 100004 parareal_cable.json cells[0].morphology.dend_length=2000000"
)
for c in "${cases[@]}"; do
  read -r name ncv file set <<< "$c"
  (( ncv > max_cv || ncv < min_cv )) && continue
  for K in $slices; do
    for C in $coarse; do
     for F in $factors; do
      if (( SECONDS - start > budget )); then echo "budget of $budget s spent: stopping before $name $ncv K=$K C=$C F=$F"; exit 0; fi
      spec="parareal:slices=$K,coarse=$C,coarse-cvs=$F,verify=on${gsolver:+,coarse-solver=$gsolver}"
      "$bin" run "$models/$file" --set "$set" --tfinal 64 --solver "$solver" --threads "$threads" \
        --time-parallel "$spec" --timings json -o "$tmp/out.h5" > "$tmp/json" 2> "$tmp/log"
      rc=$?
      if (( rc != 0 )); then echo "FAIL $name $ncv K=$K C=$C F=$F: exit $rc"; cat "$tmp/log"; continue; fi
      python3 - "$tmp/json" "$label" "$solver" "$threads" "$name" "${gsolver:--}" >> "$out" <<'PY'
import json, sys
j = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
f = lambda x: 'inf' if x is None else '%.3g' % x
print('\t'.join([sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], str(j['n_cv']), str(j['slices']), str(j['coarse']),
                 sys.argv[6], str(j['iterations']), '%.4f' % j['sequential_run'], '%.4f' % j['run'],
                 '%.3f' % (j['sequential_run'] / j['run']), '%.4f' % j['fine'], '%.4f' % j['coarse_s'],
                 f(j['max_trace_difference']), f(j['max_spike_difference']), str(j['n_spikes']),
                 str(j['sequential_spikes']), str(j.get('coarse_cvs', 1)), str(j.get('n_cv_coarse', j['n_cv']))]))
PY
      tail -1 "$out"
     done
    done
  done
done
