#!/usr/bin/env bash
# Set up, build and run the whole test suite (CPU tests always; GPU tests skip without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/setup.sh
cd build && ctest --output-on-failure -j "${JOBS:-$(nproc)}"
