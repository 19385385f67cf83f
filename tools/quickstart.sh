#!/usr/bin/env bash
# Set up, build, run the main example to HDF5 and plot its traces.
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/setup.sh
mkdir -p out
./build/app/arbolito run examples/single_cell.json -o out/single_cell.h5
/usr/bin/python3 tools/plot_traces.py out/single_cell.h5 -o out/single_cell.png
echo "wrote out/single_cell.h5 and out/single_cell.png"
