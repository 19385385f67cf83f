#!/usr/bin/env bash
# One validation case: arbolito and NEURON run the same discretised model (nseg policy,
# same dt, usetable_hh = 0); every sampled voltage must agree within TOL mV.
# Usage: vs_neuron.sh ARBOLITO MODEL.json TOL
set -euo pipefail
bin=$1; model=$2; tol=$3
/usr/bin/python3 -c "import neuron" >/dev/null 2>&1 || { echo "SKIP: NEURON (python3-neuron) not installed"; exit 77; }
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
name=$(basename "$model" .json)
"$bin" info "$model" --geometry "$tmp/geom.json" --log-level warn >/dev/null
/usr/bin/python3 "$here/neuron/run_neuron.py" "$tmp/geom.json" "$tmp/nrn.h5" --float64 --exact-cylinders >/dev/null
"$bin" run "$model" -o "$tmp/arb.h5" --double-report --log-level warn
/usr/bin/python3 "$here/sonata_reader.py" compare "$tmp/arb.h5" "$tmp/nrn.h5" --vtol "$tol" --ttol 1e-9 --json "$tmp/cmp.json"
echo "$name: $(cat "$tmp/cmp.json")"
