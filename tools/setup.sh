#!/usr/bin/env bash
# Installs what is missing (Debian packages) and builds arbolito into build/.
# Environment: BUILD_DIR (default build), CMAKE_ARGS (extra cmake arguments), JOBS.
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=(build-essential cmake libeigen3-dev libspdlog-dev libcli11-dev libhdf5-dev nlohmann-json3-dev
      libgtest-dev libopenmpi-dev openmpi-bin hdf5-tools python3-h5py python3-numpy python3-matplotlib
      python3-neuron python3-nmodl neuron-dev bison flex python3-dev pybind11-dev python3-pytest python3-venv)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
build=${BUILD_DIR:-build}
# cmake's own chatter is kept in $build/cmake.log; what it decided about the backends
# (CUDA on/off, MPI on/off) is shown.
mkdir -p "$build"
# The Allen channels (NMODL) where the validation models are (tools/validate_allen.sh).
allen=()
[[ -d ../shared/models/allen/mechanisms ]] && allen=("-DARBOLITO_MECHANISMS=$(cd ../shared/models/allen/mechanisms && pwd)")
if ! cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "${allen[@]}" ${CMAKE_ARGS:-} >"$build/cmake.log" 2>&1; then
  cat "$build/cmake.log"; exit 1
fi
grep -E "^-- arbolito:" "$build/cmake.log" || true
cmake --build "$build" -j "${JOBS:-$(nproc)}"
