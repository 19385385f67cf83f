#!/usr/bin/env bash
# Set up, build and run the whole test suite, then say which backends it tested: the
# CPU backends always, MPI when built with it, the GPU tests only in a CUDA build (a
# build without nvcc has none) and only on a machine with a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
# A warning fails the build. The tests need the CUDA code compiled for one architecture
# only (CI has no GPU; a GPU machine's runs use its own build): 90 unless CUDAARCHS says.
CUDAARCHS="${CUDAARCHS:-90}" CMAKE_ARGS="${CMAKE_ARGS:-} -DARBOLITO_WERROR=ON" ./tools/setup.sh
cd build
# Arbor 0.12.2 from PyPI, the peer of the tests against Arbor (label arbor), in a virtual
# environment of its own; where PyPI cannot be reached those tests skip.
if ! arbor-peer/bin/python3 -c "import arbor" >/dev/null 2>&1; then
  { /usr/bin/python3 -m venv arbor-peer &&
    timeout 600 arbor-peer/bin/pip install -q --disable-pip-version-check "arbor==0.12.2"; } ||
    echo "test: no Arbor 0.12.2 from PyPI: the tests against Arbor skip"
fi
rc=0
ctest --output-on-failure -j "${JOBS:-$(nproc)}" || rc=$?
version=$(./app/arbolito --version)
backends="cpu, omp"
[[ $version == *"MPI on"* ]] && backends+=", mpi"
if [[ $version == *"CUDA on"* ]]; then
  if nvidia-smi -L >/dev/null 2>&1; then backends+=", cuda"; cuda="on"; else cuda="on, but no GPU here: GPU tests skipped"; fi
elif command -v nvcc >/dev/null; then cuda="off (configured off)"
else cuda="off (no nvcc: no GPU tests built)"; fi
neuron=$(/usr/bin/python3 -c "import neuron" 2>/dev/null && echo "run" || echo "not run (python3-neuron missing)")
arbor=$(arbor-peer/bin/python3 -c "import arbor" 2>/dev/null && echo "run" || echo "not run (no arbor from PyPI)")
echo "backends tested: $backends; CUDA: $cuda; NEURON validation: $neuron; Arbor validation: $arbor"
exit $rc
