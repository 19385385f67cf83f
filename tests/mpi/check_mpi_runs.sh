#!/usr/bin/env bash
# arbolito under mpirun (tests/mpi.cmake; docs/mpi.md): the same spikes and traces, bit
# for bit, with 1 and 2 ranks, pipelined or not, with the omp solver, spikes only; one
# output file, written by rank 0 alone; logs from rank 0 only; timings that include the
# MPI time; input and output errors that stop every rank with one message and no file.
# Usage: check_mpi_runs.sh ARBOLITO SOURCE_DIR PYTHON MPIRUN [MPIRUN ARGS...]
#        (MPIRUN ARGS without the process count: this script adds -np N)
set -u
bin=$1; src=$2; py=$3; shift 3
mpirun=("$@")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
ok()   { echo "ok   $*"; }
bad()  { echo "FAIL $*"; fail=1; }
np()   { local n=$1; shift; timeout 180 "${mpirun[@]}" -np "$n" "$@"; }
same() {  # name a.h5 b.h5: spikes and traces identical
  if "$py" "$src/tests/sonata_reader.py" compare "$2" "$3" --vtol 0 --ttol 0 >"$tmp/cmp" 2>&1; then ok "$1"
  else bad "$1: $(tr '\n' ' ' <"$tmp/cmp")"; fi
}

for model in examples/ring.json tests/data/networks/busyring16_short.json tests/data/networks/simultaneous.json; do
  name=$(basename "$model" .json); m="$src/$model"; d="$tmp/$name"; mkdir -p "$d"
  "$bin" run "$m" -o "$d/ref.h5" --log-level warn || { bad "$name: serial run"; continue; }
  "$bin" run "$m" -o "$d/ref_spikes.h5" --spikes-only --log-level warn || bad "$name: serial spikes-only run"
  np 1 "$bin" run "$m" -o "$d/np1.h5" --log-level warn && same "$name: 1 rank" "$d/ref.h5" "$d/np1.h5"
  np 2 "$bin" run "$m" -o "$d/np2.h5" --log-level warn && same "$name: 2 ranks" "$d/ref.h5" "$d/np2.h5"
  np 2 "$bin" run "$m" -o "$d/np2_nopipe.h5" --no-pipeline --log-level warn &&
    same "$name: 2 ranks, no pipeline" "$d/ref.h5" "$d/np2_nopipe.h5"
  np 2 "$bin" run "$m" -o "$d/np2_omp.h5" --solver omp --threads 2 --log-level warn &&
    same "$name: 2 ranks x 2 omp threads" "$d/ref.h5" "$d/np2_omp.h5"
  np 2 "$bin" run "$m" -o "$d/np2_spikes.h5" --spikes-only --log-level warn &&
    same "$name: 2 ranks, spikes only" "$d/ref_spikes.h5" "$d/np2_spikes.h5"
  np 3 "$bin" run "$m" -o "$d/np3.h5" --log-level warn && same "$name: 3 ranks" "$d/ref.h5" "$d/np3.h5"
done

# One file, by rank 0; rank 0 alone logs; timings over all ranks.
d="$tmp/out"; mkdir -p "$d"; cd "$d"
np 2 "$bin" run "$src/examples/ring.json" -o ring.h5 --timings json >"$tmp/json" 2>"$tmp/err" || bad "timings run failed: $(cat "$tmp/err")"
files=$(ls -A "$d" | tr '\n' ' ')
[[ "$files" == "ring.h5 " ]] && ok "one output file ($files)" || bad "files written: '$files'"
n_info=$(grep -c '^\[info\]' "$tmp/err"); n_rank=$(grep -c '^\[rank' "$tmp/err")
[[ $n_info -eq 2 && $n_rank -eq 0 ]] && ok "logs from rank 0 only" || bad "logs: $n_info info lines, $n_rank from other ranks: $(cat "$tmp/err")"
if "$py" - "$tmp/json" <<'PY'
import json, sys
lines = [l for l in open(sys.argv[1]) if l.strip()]
assert len(lines) == 1, f"{len(lines)} JSON lines (rank 0 alone prints)"
j = json.loads(lines[0])
for k in ("run", "events", "exchange", "exchange_exposed", "mpi", "ranks", "n_spikes", "n_cv"):
    assert k in j, f"no {k}"
assert j["ranks"] == 2 and j["n_spikes"] == 16 and j["n_cv"] == 104, j
assert 0 < j["mpi"] < j["run"] and j["exchange_exposed"] <= j["run"], j
PY
then ok "timings json: ranks, mpi, exchange"; else bad "timings json: $(cat "$tmp/json")"; fi
cd "$tmp"

# Errors: every rank stops, one message, no output file.
d="$tmp/errors"; mkdir -p "$d"
np 2 "$bin" run "$src/tests/data/bad_models/connection_bad_source.json" -o "$d/x.h5" 2>"$tmp/err"; rc=$?
n=$(grep -c '^\[' "$tmp/err")
if [[ $rc -eq 2 && $n -eq 1 ]] && grep -q 'connections\[1\].source' "$tmp/err" && ! compgen -G "$d/x.h5*" >/dev/null; then
  ok "bad model: exit 2, one message"; else bad "bad model: exit $rc, $n messages: $(cat "$tmp/err")"; fi
np 2 "$bin" run "$src/examples/ring.json" -o "$d/no_such_dir/x.h5" 2>"$tmp/err"; rc=$?
n=$(grep -c '^\[\(critical\|error\|rank\)' "$tmp/err")
# checked before the set-up (app/output_checks): an input error on every rank
if [[ $rc -eq 2 && $n -eq 1 ]] && grep -q 'no_such_dir' "$tmp/err" && [[ -z "$(ls -A "$d")" ]]; then
  ok "unwritable output: exit 2, one message, nothing written"; else bad "unwritable output: exit $rc, $n messages: $(cat "$tmp/err")"; fi
np 2 "$bin" info "$src/examples/ring.json" >/dev/null 2>"$tmp/err"; rc=$?
[[ $rc -eq 2 ]] && grep -q 'one rank' "$tmp/err" && ok "info refuses several ranks" || bad "info under mpirun: exit $rc"
exit $fail
