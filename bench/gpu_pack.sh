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
#        bench/gpu_pack.sh BUILD_DIR --mpi MPI_DIR: a build configured against an MPI that
#        the GPU machine lacks (docs/mpi.md: the PyPI mpich wheel, MPI_DIR its
#        mpich-5.0.2.data/data as tools/mpich_wheel.sh unpacks it) also packs that MPI's
#        launcher (bin/mpiexec, mpiexec.hydra, hydra_pmi_proxy) and libmpi with the
#        libraries beside it into .gpu_deps/mpi; gpu_run.py's `mpi` and `scaling` steps
#        launch ranks with it. Over the carry limit the binaries and libmpi travel gzipped
#        and, still over 50 MiB, lib/ as lib.tgz (gpu_run.py unpacks both).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${1:?build folder}
MPI_DIR=""
if [ "${2:-}" = --mpi ]; then
  MPI_DIR=$(cd "${3:?--mpi needs the MPI folder (bin/, lib/)}" && pwd)
  [ -x "$MPI_DIR/bin/mpiexec" ] && [ -x "$MPI_DIR/bin/hydra_pmi_proxy" ] ||
    { echo "gpu_pack.sh: $MPI_DIR has no bin/mpiexec and bin/hydra_pmi_proxy (an MPICH folder)" >&2; exit 2; }
elif [ -n "${2:-}" ]; then
  echo "gpu_pack.sh: unknown argument '$2' (usage: gpu_pack.sh BUILD_DIR [--mpi MPI_DIR])" >&2; exit 2
fi
DEPS=${GPU_DEPS:-$ROOT/.gpu_deps}
mkdir -p "$DEPS/prebuilt" "$DEPS/lib"
bins=(app/arbolito tests/gpu_tests bench/gpu_solver_bench bench/thomas_bench bench/gpu_step_bench bench/fine_bench bench/branch_bench
      bench/seed_variants_bench bench/thomas_regression_bench bench/chain_latency_bench)
[ -z "$MPI_DIR" ] || bins+=(tests/mpi_tests)  # the MPI tests (MpiGpu.*: ranks sharing a GPU)
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
  { if [ -n "$MPI_DIR" ]; then grep -v "^$MPI_DIR/"; else cat; fi; } |
  while read -r lib; do cp -L "$lib" "$DEPS/lib/"; done
rm -rf "$DEPS/mpi"
if [ -n "$MPI_DIR" ]; then
  # libmpi finds the libraries of lib/mpich/ by its own run path ($ORIGIN/mpich).
  mkdir -p "$DEPS/mpi/bin" "$DEPS/mpi/lib"
  cp "$MPI_DIR"/bin/{mpiexec,mpiexec.hydra,hydra_pmi_proxy} "$DEPS/mpi/bin/"
  cp -L "$MPI_DIR"/lib/libmpi.so.12 "$DEPS/mpi/lib/"
  cp -rL "$MPI_DIR/lib/mpich" "$DEPS/mpi/lib/"
fi
# Over the device call's carry limit (64 MiB in all): the binaries and libmpi travel gzipped
# (gpu_run.py unpacks prebuilt/*.gz and mpi/lib/*.gz before its first step).
if [ "$(du -sm "$DEPS" | cut -f1)" -gt 60 ]; then
  for b in "${bins[@]}"; do gzip -f "$DEPS/prebuilt/$(basename "$b")"; done
  [ -z "$MPI_DIR" ] || gzip -f "$DEPS/mpi/lib/libmpi.so.12"
fi
# Still over (a build with the Allen channels, MPI and the tests): lib/ as one archive,
# which gpu_run.py unpacks before its first step (a third of the size).
rm -f "$DEPS/lib.tgz"
if [ "$(du -sm "$DEPS" | cut -f1)" -gt 50 ]; then
  tar czf "$DEPS/lib.tgz" -C "$DEPS/lib" . && rm -f "$DEPS"/lib/*
fi
{ echo "built $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname) from $B"
  git -C "$ROOT" rev-parse --short HEAD 2>/dev/null | sed "s/^/repository HEAD when packed: /"
  nvcc --version | tail -1
  [ -z "$MPI_DIR" ] || echo "MPI: $MPI_DIR (launcher and libmpi in mpi/)"; } > "$DEPS/prebuilt/STAMP"
du -sh "$DEPS"
