#!/usr/bin/env bash
# Builds arbolito-prof: arbolito with the resident kernel's phase clock on
# (ARBOLITO_RESIDENT_PROFILE, gpu/resident_epoch.cu), from a configured CUDA build
# folder: resident_epoch.cu compiled again with the macro into a copy of the run
# library, then arbolito linked against it. The binary prints, at the end of a
# step=resident run, the share of block cycles in events, assembly, currents (thread 0's own
# side-by-side channel terms, then the ordered sums), the solve, the states' advance, the
# deferred density states and the rest, each solve level's cycles, and each side-by-side
# channel's own cycles (its instance 0's thread: its warp's other channels included). Usage: bash bench/resident_profile.sh BUILD_DIR
# OUT_BINARY [MACRO...] (other macros in place of, or beside, ARBOLITO_RESIDENT_PROFILE: a
# bench experiment's variant of the resident kernel).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:?build folder}" && pwd); OUTBIN=${2:?output binary}; shift 2
MACROS=${*:-ARBOLITO_RESIDENT_PROFILE}
T=$(mktemp -d)
E=$B/run
FLAGS=$(sed -n 's/^CUDA_FLAGS = //p' "$E/CMakeFiles/arbolito_run.dir/flags.make")
DEFS=$(sed -n 's/^CUDA_DEFINES = //p' "$E/CMakeFiles/arbolito_run.dir/flags.make")
(cd "$E" && nvcc $FLAGS $DEFS ${MACROS//ARBOLITO/-DARBOLITO} --options-file CMakeFiles/arbolito_run.dir/includes_CUDA.rsp \
  -c "$ROOT/gpu/resident_epoch.cu" -o "$T/resident_epoch.cu.o")
cp "$E/libarbolito_run.a" "$T/" && (cd "$T" && ar r libarbolito_run.a resident_epoch.cu.o)
OUTABS=$(cd "$(dirname "$OUTBIN")" && pwd)/$(basename "$OUTBIN")
(cd "$B/app" && $(sed -e "s#-o arbolito#-o $OUTABS#" -e "s#../run/libarbolito_run.a#$T/libarbolito_run.a#" CMakeFiles/arbolito.dir/link.txt))
rm -rf "$T"
echo "built $OUTABS"
