#!/usr/bin/env bash
# Set up, build, run the main example (the 8-cell ring network) and the single-cell
# example to HDF5, and plot their traces.
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/setup.sh
mkdir -p out
for ex in ring single_cell; do
  ./build/app/arbolito run "examples/$ex.json" -o "out/$ex.h5"
  /usr/bin/python3 tools/plot_traces.py "out/$ex.h5" -o "out/$ex.png"
done
echo "wrote out/ring.h5, out/ring.png, out/single_cell.h5, out/single_cell.png"
