#!/usr/bin/env bash
# The PyPI `mpich` wheel (MPICH 5.0.2 with its compiler wrappers, mpi.h, libmpi and the
# hydra launcher), unpacked for building arbolito against an MPI that can travel with the
# build to a machine without one (docs/mpi.md, "Building against the mpich wheel").
# Usage: tools/mpich_wheel.sh [DIR]   (default .mpich in the checkout; ignored by git)
# Prints the folder to give CMake and bench/gpu_pack.sh: DIR/w/mpich-5.0.2.data/data, whose
# bin/mpicc is -DMPI_C_COMPILER.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${1:-$ROOT/.mpich}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
DATA=$DIR/w/mpich-5.0.2.data/data
if [ ! -x "$DATA/bin/mpicc" ]; then
  ls "$DIR"/mpich-5.0.2-*.whl > /dev/null 2>&1 || python3 -m pip download --no-deps mpich==5.0.2 -d "$DIR" >&2
  rm -rf "$DIR/w"
  # Unzipped rather than `pip install --target`: the wheel's data folder keeps bin/ and lib/ together.
  python3 -m zipfile -e "$DIR"/mpich-5.0.2-*.whl "$DIR/w"
  chmod +x "$DATA"/bin/*
fi
echo "$DATA"
