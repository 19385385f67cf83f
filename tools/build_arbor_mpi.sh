#!/usr/bin/env bash
# Builds Arbor 0.12.1's own busyring with MPI and CUDA, offline, from the sources of
# ../shared/peers/arbor-gpu, against an MPICH that the GPU machines can run (the PyPI wheel
# that tools/mpich_wheel.sh unpacks; docs/mpi.md), for bench/gpu_run.py's arbor-mpi step.
#
#   tools/build_arbor_mpi.sh MPI_DIR [WORK]      # MPI_DIR: the wheel's mpich-5.0.2.data/data
#   JOBS=2 NICE=19 tools/build_arbor_mpi.sh .mpich/w/mpich-5.0.2.data/data /work/arbor-mpi
#
# The peers' build.sh unpacks, patches and configures (without MPI); the build folder is then
# reconfigured with ARB_WITH_MPI and the wheel's compiler wrappers. libarbor is the long part
# (about 30 minutes on 2 cores). The binary links libmpi dynamically (the packed MPICH's
# lib/ on the GPU machine) and libstdc++ statically, as the peers' busyring does.
# Prints BUSYRING_MPI=<path> last. Pack it: gzip -c <path> > .gpu_deps/prebuilt/busyring-mpi.gz
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
peers=$(cd "$root/.." && pwd)/shared/peers/arbor-gpu
mpi=$(cd "${1:?usage: build_arbor_mpi.sh MPI_DIR [WORK]}" && pwd)
work=${2:-${ARBOR_WORK:-/tmp/arbor-mpi-work}}
[[ -f $peers/build.sh ]] || { echo "build_arbor_mpi.sh: no $peers/build.sh" >&2; exit 2; }
[[ -x $mpi/bin/mpicxx ]] || { echo "build_arbor_mpi.sh: no $mpi/bin/mpicxx (an MPICH folder)" >&2; exit 2; }
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

ARBOR_WORK=$work TARGET=none bash "$peers/build.sh"
cmake_bin=$(sed -n 's/^CMAKE_COMMAND:INTERNAL=//p' "$work/build/CMakeCache.txt")
PATH="$CUDA_HOME/bin:$PATH" "$cmake_bin" -S "$work/src" -B "$work/build" -DARB_WITH_MPI=ON \
  -DMPI_CXX_COMPILER="$mpi/bin/mpicxx" -DMPI_C_COMPILER="$mpi/bin/mpicc"
PATH="$CUDA_HOME/bin:$PATH" nice -n "${NICE:-0}" ninja -C "$work/build" -j"${JOBS:-$(nproc)}" busyring
echo "BUSYRING_MPI=$work/build/bin/busyring"
