#!/usr/bin/env bash
# Builds bench/allen_network_arbor.cpp against Arbor 0.12.1's own sources, offline, with the
# build of ../shared/peers/arbor-gpu (CUDA sm_90 and the host code as its busyring: static
# cudart, libstdc++ and libgcc, so the binary needs only libc on the GPU machine).
#
#   tools/build_arbor_allen_network.sh [WORK]     # default $ARBOR_WORK, else /tmp/arbor-gpu-work
#   JOBS=2 NICE=19 tools/build_arbor_allen_network.sh /work/arbor-build/w
#
# The program is added to the unpacked tree as one more example (example/allen_network,
# linked to arbor and nlohmann_json as the examples are) and built as its ninja target;
# libarbor is the long part (on 2 cores over an hour). Prints ALLEN_NETWORK_ARBOR=<path>
# last. Pack it for bench/gpu_run.py's allen-network step:
#   gzip -c <path> > .gpu_deps/prebuilt/allen_network_arbor.gz
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
peers=$(cd "$root/.." && pwd)/shared/peers/arbor-gpu
work=${1:-${ARBOR_WORK:-/tmp/arbor-gpu-work}}
[[ -f $peers/build.sh ]] || { echo "build_arbor_allen_network.sh: no $peers/build.sh" >&2; exit 2; }
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

# Unpack, patch and configure only (build.sh's TARGET=none).
ARBOR_WORK=$work TARGET=none bash "$peers/build.sh"

ex=$work/src/example
mkdir -p "$ex/allen_network"
cat > "$ex/allen_network/CMakeLists.txt" <<EOF
# arbolito's bench/allen_network_arbor.cpp, built with the examples' flags.
add_executable(allen_network_arbor EXCLUDE_FROM_ALL $root/bench/allen_network_arbor.cpp)
target_link_libraries(allen_network_arbor PRIVATE arbor ext-json)
EOF
grep -q '^add_subdirectory(allen_network)$' "$ex/CMakeLists.txt" || echo 'add_subdirectory(allen_network)' >> "$ex/CMakeLists.txt"

# ninja re-runs CMake for the new example, then builds libarbor and the program.
PATH="$CUDA_HOME/bin:$PATH" nice -n "${NICE:-0}" ninja -C "$work/build" -j"${JOBS:-$(nproc)}" bin/allen_network_arbor
echo "ALLEN_NETWORK_ARBOR=$work/build/bin/allen_network_arbor"
