#!/usr/bin/env bash
# arbolito against NEURON on the four Allen Cell Types perisomatic models of
# ../shared/models/allen (read there, never copied into the project): docs/allen-validation.md.
#
#   tools/validate_allen.sh [--arbolito BIN] [--build-dir DIR] [--work DIR] [--zero-area keep|fold]
#                           [--models FIT,...] [--rheobase]
#
# Without --arbolito, builds arbolito into DIR (--build-dir, default build-allen) with the
# Allen channels (-DARBOLITO_MECHANISMS=../shared/models/allen/mechanisms). Compiles the
# same .mod files into DIR/allen_nrnmech for NEURON (Debian's nrnivmodl, pointed at the package's makefile), then runs each model
# in both simulators at two step amplitudes (on cpu, and on the GPU solvers where this
# build has CUDA and a GPU is visible) and prints spike counts, the largest spike-time
# difference and the largest soma-voltage difference over the first 100 ms. --zero-area
# sets arbolito's discretisation key (default keep; fold drops the zero-area nodes exactly),
# --models runs only those fits (allen_validate.py's).
# Exit status: 0 every target met; 1 a target missed or a part missing (named in the
# output); 2 bad usage; 77 skipped: ../shared/models/allen, NEURON (python3-neuron,
# python3-h5py) or nrnivmodl (neuron-dev) missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
arbolito="" build="$root/build-allen" work="" extra=()
while (($#)); do
  case $1 in
    --arbolito) arbolito=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --rheobase) extra+=(--rheobase); shift ;;
    --zero-area|--models) (($# >= 2)) || { echo "$0: $1 needs a value" >&2; exit 2; }; extra+=("$1" "$2"); shift 2 ;;
    *) echo "usage: $0 [--arbolito BIN] [--build-dir DIR] [--work DIR] [--zero-area keep|fold] [--models FIT,...] [--rheobase]" >&2; exit 2 ;;
  esac
done
allen=$(cd "$root/.." && pwd)/shared/models/allen
skip() { echo "SKIP: $*"; exit 77; }
[[ -d $allen/fits && -d $allen/morphologies && -d $allen/mechanisms ]] ||
  skip "the Allen models are not in $allen (../shared/models/allen from the project's root)"
py=/usr/bin/python3
"$py" -c "import neuron, h5py" >/dev/null 2>&1 || skip "$py cannot import neuron and h5py (python3-neuron, python3-h5py)"
command -v nrnivmodl >/dev/null || skip "nrnivmodl not found (Debian package neuron-dev; also build-essential, bison, flex)"
work=${work:-$build/allen_validation}
mkdir -p "$build" "$work"

if [[ -z $arbolito ]]; then
  launcher=(); command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  # The CUDA backend only where a GPU can run it (its build is long).
  cuda=OFF; nvidia-smi -L >/dev/null 2>&1 && cuda=AUTO
  echo "building arbolito with the Allen mechanisms in $build (CUDA $cuda)"
  if ! cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "-DARBOLITO_MECHANISMS=$allen/mechanisms" \
         "-DARBOLITO_CUDA=$cuda" "${launcher[@]}" \
         >"$build/allen_cmake.log" 2>&1 ||
     ! cmake --build "$build" -j "${JOBS:-2}" --target arbolito >"$build/allen_build.log" 2>&1; then
    echo "FAILED: building arbolito with the Allen mechanisms; the end of $build/allen_cmake.log and allen_build.log:"
    tail -n 15 "$build/allen_cmake.log" "$build/allen_build.log"
    exit 1
  fi
  if grep -A5 "Manually-specified variables were not used" "$build/allen_cmake.log" | grep -q ARBOLITO_MECHANISMS; then
    echo "note: this arbolito has no ARBOLITO_MECHANISMS option (the NMODL translator's): the Allen channels are not built in"
  fi
  arbolito=$build/app/arbolito
fi
[[ -x $arbolito ]] || { echo "FAILED: $arbolito is not an executable"; exit 1; }

# NEURON's mechanisms: rebuilt when a .mod file is newer than the library.
nrn=$build/allen_nrnmech
lib=$nrn/x86_64/libnrnmech.so
if [[ ! -f $lib ]] || [[ -n $(find "$allen/mechanisms" -name '*.mod' -newer "$lib" -print -quit) ]]; then
  echo "compiling the Allen mechanisms for NEURON in $nrn"
  "$py" "$root/tools/allen_neuron.py" mechs "$allen/mechanisms" "$nrn" 2>&1 | grep -v -e DISPLAY -e "No graphics" || true
  [[ -f $lib ]] || { echo "FAILED: nrnivmodl made no $lib (see $nrn/nrnivmodl.log)"; exit 1; }
fi

solvers=cpu
if [[ $("$arbolito" --version) == *"CUDA on"* ]] && nvidia-smi -L >/dev/null 2>&1; then
  solvers+=",gpu-cell,gpu-fine,gpu-fine:step=resident,gpu-branch"
fi
echo "arbolito: $arbolito ($("$arbolito" --version | head -n 1)); solvers: $solvers"
exec "$py" "$root/tools/allen_validate.py" --arbolito "$arbolito" --allen "$allen" --nrn-lib "$lib" --work "$work" \
  --solvers "$solvers" "${extra[@]}"
