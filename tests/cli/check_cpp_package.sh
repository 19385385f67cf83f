#!/usr/bin/env bash
# A C++ program on the installed engine: installs the build's package (component
# development) into a scratch prefix, builds examples/cpp against it with
# find_package(arbolito), runs it on the ring example and checks that it records what
# `arbolito run` records: 8 cells, the command line's spike count, 300 frames of 16 columns.
# Usage: check_cpp_package.sh BUILD_DIR ARBOLITO SOURCE_DIR WORK_DIR [cmake arguments...]
set -euo pipefail
build=$1 exe=$2 src=$3 work=$4
shift 4
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" --component development >/dev/null
cmake -S "$src/examples/cpp" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$work/build" >/dev/null
out=$("$work/build/run_model" "$src/examples/ring.json" run.tfinal=30)
echo "$out"
n=$("$exe" run "$src/examples/ring.json" --tfinal 30 -o "$work/cli.h5" 2>&1 | sed -n 's/.*: \([0-9]*\) spikes;.*/\1/p')
[[ -n $n ]] || { echo "the command line's spike count not found"; exit 1; }
grep -q "^ring: 8 cells, $n spikes, 300 frames of 16 columns" <<<"$out" || { echo "expected ring: 8 cells, $n spikes, 300 frames of 16 columns"; exit 1; }
echo "the installed package's program records what arbolito run records ($n spikes)"
