#!/usr/bin/env bash
# Packs binaries built on this machine for a GPU machine that lacks the project's
# libraries (HDF5, spdlog, fmt, ...): copies arbolito, gpu_tests and the GPU benchmarks
# from a CUDA build folder into .gpu_deps/prebuilt and the shared libraries they load
# (except the C/C++ runtime and CUDA's own, which the GPU machine has) into
# .gpu_deps/lib. bench/gpu_run.py runs them there with LD_LIBRARY_PATH set.
# Usage: bench/gpu_pack.sh BUILD_DIR   (configured with -DCMAKE_CUDA_ARCHITECTURES=90
#        -DARBOLITO_MPI=OFF, targets arbolito gpu_tests gpu_solver_bench thomas_bench
#        gpu_step_bench fine_bench branch_bench seed_variants_bench thomas_regression_bench
#        chain_latency_bench built). GPU_PACK_BINS="gpu_tests thomas_regression_bench"
#        (names from that list) packs only those (lib/ then holds only their libraries).
#        Other binaries (a baseline arbolito, arbolito-prof of bench/resident_profile.sh)
#        go beside them by hand, gzipped if the carry limit needs it: gpu_run.py unpacks
#        prebuilt/*.gz and takes any packed binary by name (e.g. `ab arbolito-base ...`).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${1:?build folder}
DEPS=${GPU_DEPS:-$ROOT/.gpu_deps}
mkdir -p "$DEPS/prebuilt" "$DEPS/lib"
bins=(app/arbolito tests/gpu_tests bench/gpu_solver_bench bench/thomas_bench bench/gpu_step_bench bench/fine_bench bench/branch_bench
      bench/seed_variants_bench bench/thomas_regression_bench bench/chain_latency_bench)
if [ -n "${GPU_PACK_BINS:-}" ]; then
  wanted=()
  for name in $GPU_PACK_BINS; do
    hit=""
    for b in "${bins[@]}"; do [ "$(basename "$b")" = "$name" ] && hit=$b; done
    [ -n "$hit" ] || { echo "gpu_pack.sh: $name is not a packed binary" >&2; exit 2; }
    wanted+=("$hit")
  done
  bins=("${wanted[@]}")
fi
for b in "${bins[@]}"; do
  strip -o "$DEPS/prebuilt/$(basename "$b")" "$B/$b"
done
rm -f "$DEPS"/lib/*
for b in "${bins[@]}"; do ldd "$B/$b" | awk '{print $3}'; done | sort -u |
  grep -vE '/(libc|libm|libstdc\+\+|libgcc_s|ld-linux[^/]*|libdl|libpthread|librt|libresolv)\.so|/usr/local/cuda|^$' |
  while read -r lib; do cp -L "$lib" "$DEPS/lib/"; done
{ echo "built $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname) from $B"
  git -C "$ROOT" rev-parse --short HEAD 2>/dev/null | sed "s/^/repository HEAD when packed: /"
  nvcc --version | tail -1; } > "$DEPS/prebuilt/STAMP"
du -sh "$DEPS"
