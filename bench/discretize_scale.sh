#!/usr/bin/env bash
# Issue 14's scale item: discretisation time against samples per branch. An unbranched SWC
# chain of N samples (a soma and one dendrite), cut at every sample (policy every_segment),
# timed through `arbolito info` (reading, discretising, the table); median of 3 per size.
# Linear is the expectation: the time per sample should stay flat as N doubles.
# Usage: bench/discretize_scale.sh [--build DIR] [SIZES...]   (default 12500 25000 50000 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
if [ "${1:-}" = --build ]; then build=$2; shift 2; fi
sizes=${*:-12500 25000 50000 100000}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf "%-9s %-9s %-12s\n" samples info_s us/sample
for n in $sizes; do
  python3 - "$n" "$tmp" <<'PY'
import json, sys
n, tmp = int(sys.argv[1]), sys.argv[2]
with open(f"{tmp}/chain.swc", "w") as f:
    f.write("1 1 0 0 0 5 -1\n")
    for i in range(2, n + 1):
        f.write(f"{i} 3 {i}.0 0 0 0.5 {i - 1}\n")
json.dump({"name": "chain", "run": {"dt": 0.025, "tfinal": 1},
           "cells": [{"count": 1, "morphology": {"swc": f"{tmp}/chain.swc"},
                      "discretization": {"policy": "every_segment"},
                      "paint": [{"region": "all", "mechanism": "pas"}]}]}, open(f"{tmp}/chain.json", "w"))
PY
  ts=()
  for r in 1 2 3; do
    s=$(date +%s.%N); $build/app/arbolito info $tmp/chain.json > /dev/null 2>&1; e=$(date +%s.%N)
    ts+=($(echo "$e - $s" | bc -l))
  done
  med=$(printf "%s\n" "${ts[@]}" | sort -g | sed -n 2p)
  printf "%-9s %-9.3f %-12.2f\n" $n $med $(echo "$med * 1000000 / $n" | bc -l)
done
