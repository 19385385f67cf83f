#!/usr/bin/env bash
# Every broken model ends with one clear error line that names the file and the key or
# line, exit status 2, and no output file (tests/data/bad_models/expected.txt).
set -u
bin=$1; dir=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
while IFS=: read -r name text; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  text=${text# }
  model="$dir/$name.json"
  "$bin" run "$model" -o "$tmp/out.h5" >"$tmp/stdout" 2>"$tmp/stderr"
  rc=$?
  lines=$(grep -c . "$tmp/stderr")
  msg=$(cat "$tmp/stderr")
  if [[ $rc -ne 2 ]]; then echo "FAIL $name: exit $rc, expected 2: $msg"; fail=1; continue; fi
  if [[ $lines -ne 1 ]]; then echo "FAIL $name: $lines error lines: $msg"; fail=1; continue; fi
  if [[ "$msg" != *"$text"* ]]; then echo "FAIL $name: '$msg' does not name '$text'"; fail=1; continue; fi
  if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$tmp/stderr"; then echo "FAIL $name: raw control bytes in the error line"; fail=1; continue; fi
  if [[ "$name" != malformed_swc && "$name" != swc_control_bytes && "$name" != swc_zero_length_tip && "$msg" != *"$name.json"* && "$msg" != *"no_such_cell"* ]]; then
    echo "FAIL $name: '$msg' does not name the model file"; fail=1; continue; fi
  if compgen -G "$tmp/out.h5*" >/dev/null; then echo "FAIL $name: output file left behind"; fail=1; continue; fi
  echo "ok   $name: $msg"
done < "$dir/expected.txt"
# Bad command lines: exit 2, an error holding `text`, nothing written.
ex="$dir/../../../examples/ball_and_stick.json"
expect_bad() {  # label, text the error must hold, arbolito args...
  local label=$1 text=$2; shift 2
  "$bin" "$@" >"$tmp/stdout" 2>"$tmp/stderr"; local rc=$?
  if [[ $rc -ne 2 ]] || ! grep -qF -- "$text" "$tmp/stderr" || compgen -G "$tmp/out*" >/dev/null; then
    echo "FAIL $label: exit $rc, expected 2 and '$text':"; cat "$tmp/stderr"; fail=1; rm -rf "$tmp"/out*
  else echo "ok   $label: $(head -1 "$tmp/stderr")"; fi
}
expect_bad "missing model file" "does_not_exist" run "$dir/does_not_exist.json" -o "$tmp/out.h5"
expect_bad "--dt -1" "--dt" run "$ex" --dt -1 -o "$tmp/out.h5"
# Values that would never end or never fit: refused before anything runs.
expect_bad "--tfinal nan" "--tfinal: must be >= 0, got nan" run "$ex" --tfinal nan -o "$tmp/out.h5"
expect_bad "--tfinal inf" "--tfinal: must be finite" run "$ex" --tfinal inf -o "$tmp/out.h5"
expect_bad "--tfinal 1e308" "--tfinal: 1e+308 ms at dt" run "$ex" --tfinal 1e308 -o "$tmp/out.h5"
expect_bad "--dt 1e-300" "--dt: 50 ms at dt 1e-300 ms would take 5e+301 steps" run "$ex" --dt 1e-300 -o "$tmp/out.h5"
expect_bad "--dt nan" "--dt: must be > 0, got nan" run "$ex" --dt nan -o "$tmp/out.h5"
expect_bad "--exchange-threads 10000" "--exchange-threads: 10000 threads is more than this machine takes" run "$ex" --exchange-threads 10000 -o "$tmp/out.h5"
expect_bad "--threads 10000" "--threads: 10000 threads is more than this machine takes" run "$ex" --solver omp --threads 10000 -o "$tmp/out.h5"
expect_bad "compare --threads 10000" "--threads: 10000 threads" compare "$ex" --solvers cpu,omp --threads 10000 -o "$tmp/out_cmp"
# --time-parallel (docs/parareal.md): a model with connections, tol <= 0, slices < 2, a run
# too short for the slices.
expect_bad "--time-parallel on a network" "--time-parallel: the model has" run "$dir/../../../examples/ring.json" --time-parallel parareal -o "$tmp/out.h5"
expect_bad "--time-parallel tol=0" "tol=0: must be a finite number > 0" run "$ex" --time-parallel parareal:tol=0 -o "$tmp/out.h5"
expect_bad "--time-parallel tol=-1" "tol=-1: must be a finite number > 0" run "$ex" --time-parallel parareal:tol=-1 -o "$tmp/out.h5"
expect_bad "--time-parallel slices=1" "slices=1: must be at least 2" run "$ex" --time-parallel parareal:slices=1 -o "$tmp/out.h5"
expect_bad "--time-parallel slices too many" "--time-parallel: slices=1000: the run's 2000 steps do not fill" run "$ex" --time-parallel parareal:slices=1000 -o "$tmp/out.h5"
expect_bad "--time-parallel coarse-cvs=0" "coarse-cvs=0: must be at least 1" run "$ex" --time-parallel parareal:coarse-cvs=0 -o "$tmp/out.h5"
expect_bad "--time-parallel coarse-cvs=two" "coarse-cvs=two: expected a whole number" run "$ex" --time-parallel parareal:coarse-cvs=two -o "$tmp/out.h5"
# Model paths that are not regular files: refused, not read (/dev/zero never ends).
expect_bad "model /dev/zero" "/dev/zero: the model file is a character device, not a regular file" run /dev/zero -o "$tmp/out.h5"
expect_bad "model a directory" "the model file is a directory, not a regular file" run "$dir" -o "$tmp/out.h5"
# --set KEY.PATH=VALUE (io/model_overrides.hpp): a bad value is named by its key as in
# the file, a bad assignment by --set.
expect_bad "--set run.dt=-1" "ball_and_stick.json:run.dt: must be > 0, got -1" run "$ex" --set run.dt=-1 -o "$tmp/out.h5"
expect_bad "--set run.colour=1" "ball_and_stick.json:run.colour: unknown key" run "$ex" --set run.colour=1 -o "$tmp/out.h5"
expect_bad "--set no =" "--set: 'run.dt' is not KEY.PATH=VALUE" run "$ex" --set run.dt -o "$tmp/out.h5"
expect_bad "--set through a number" "--set: 'run.dt.x=1': run.dt is a number, not an object" run "$ex" --set run.dt=0.1 --set run.dt.x=1 -o "$tmp/out.h5"
expect_bad "--set cells[5]" "--set: 'cells[5].count=2': cells has no element [5]" run "$ex" --set 'cells[5].count=2' -o "$tmp/out.h5"
expect_bad "--set num-cells too big" "network.num-cells: the model's description needs about" run "$dir/../../../examples/busyring.json" --set network.num-cells=100000000 -o "$tmp/out.h5"
# A model whose description fits but whose run cannot is refused before a cell is built,
# naming the key (it used to build the cells first: 12 GB and 30 s for 1e7 cells).
if ARBOLITO_MAX_MEMORY=2e9 "$bin" run "$dir/../../../examples/busyring.json" --set network.num-cells=1000000 --set network.synapses=10 \
     -o "$tmp/out.h5" >/dev/null 2>"$tmp/stderr"; then rc=0; else rc=$?; fi
if [[ $rc -ne 2 ]] || ! grep -q "busyring.json:network.num-cells: the run needs about" "$tmp/stderr"; then
  echo "FAIL busyring of 1e6 cells under 2 GB: exit $rc: $(cat "$tmp/stderr")"; fail=1
else echo "ok   busyring of 1e6 cells under 2 GB: $(cat "$tmp/stderr")"; fi
# ... and a good one changes the model.
if "$bin" info "$dir/../../../examples/busyring.json" --set network.num-cells=64 --set 'network.lengths=[100, 10]' | grep -q ": 64 cells,"; then
  echo "ok   --set network.num-cells=64"
else echo "FAIL --set network.num-cells=64 did not give 64 cells"; fail=1; fi
# --threads 0: the bound in words, not the largest double's 309 digits.
expect_bad "--threads 0" "--threads: '0' is not a whole number >= 1" run "$ex" --threads 0 -o "$tmp/out.h5"
if grep -qE '[0-9]{40}' "$tmp/stderr"; then echo "FAIL --threads 0: a number of 40 digits or more"; fail=1; fi
# A token of 100,000 bytes (a key, a mechanism, a solver option) is cut in the error line.
long=$(head -c 100000 /dev/zero | tr '\0' x)
printf '{"cells": [{"morphology": {"builder": "ball_and_stick"}, "paint": [{"mechanism": "%s"}]}]}' "$long" > "$tmp/long.json"
expect_bad "a 100 kB mechanism name" "more bytes)" run "$tmp/long.json" -o "$tmp/out.h5"
[[ $(wc -c < "$tmp/stderr") -lt 1000 ]] || { echo "FAIL a 100 kB mechanism name: $(wc -c < "$tmp/stderr") bytes of error"; fail=1; }
expect_bad "a 100 kB solver option" "more bytes)" run "$ex" --solver "cpu:$long=1" -o "$tmp/out.h5"
[[ $(wc -c < "$tmp/stderr") -lt 1000 ]] || { echo "FAIL a 100 kB solver option: $(wc -c < "$tmp/stderr") bytes of error"; fail=1; }
rm -f "$tmp/long.json"
# Settings that record next to nothing run, with a warning that says so.
warns() {  # label, text, arbolito args...
  local label=$1 text=$2; shift 2
  "$bin" "$@" >/dev/null 2>"$tmp/stderr"; local rc=$?
  if [[ $rc -ne 0 ]] || ! grep -qF -- "[warning] $text" "$tmp/stderr"; then echo "FAIL $label: exit $rc:"; cat "$tmp/stderr"; fail=1
  else echo "ok   $label: $(grep warning "$tmp/stderr")"; fi
  rm -f "$tmp"/out*
}
warns "sample_dt beyond tfinal" "sample_dt 200 ms against tfinal 50 ms: the report holds no frame" run "$ex" --set run.sample_dt=200 -o "$tmp/out.h5"
warns "dt beyond tfinal" "dt 0.025 ms against tfinal 0.01 ms: the run takes 0 steps" run "$ex" --tfinal 0.01 -o "$tmp/out.h5"
# Mistyped commands and options are named, with the nearest valid word.
expect_bad "runn" "unknown command 'runn' (did you mean 'run'?)" runn "$ex"
expect_bad "--spike-only" "unknown option '--spike-only' for run (did you mean --spikes-only?)" run "$ex" --spike-only -o "$tmp/out.h5"
expect_bad "--thread 2" "unknown option '--thread' for run (did you mean --threads?)" run "$ex" --thread 2 -o "$tmp/out.h5"
expect_bad "compare --solver" "unknown option '--solver' for compare (did you mean --solvers?)" compare "$ex" --solver cpu -o "$tmp/out_cmp"
if "$bin" --version | grep -Eq "^arbolito [0-9.]+( \(commit [0-9a-f]+\))?, CUDA (on|off), MPI (on|off)$"; then
  echo "ok   --version: $("$bin" --version)"
else echo "FAIL --version: $("$bin" --version 2>&1)"; fail=1; fi
# Solver specs (docs/solvers.md): one error naming the option and what is allowed. A GPU
# solver in a CPU-only build says it needs the CUDA build.
cuda=$("$bin" info | grep -q "gpu-cell (needs the CUDA build)" && echo no || echo yes)
expect_bad "--solver warp" "this build has: cpu, omp" run "$ex" --solver warp -o "$tmp/out.h5"
expect_bad "--solver omp:warp=1" "unknown option 'warp' (keys: lanes, solve)" run "$ex" --solver omp:warp=1 -o "$tmp/out.h5"
expect_bad "--solver cpu:" "is not KEY=VALUE" run "$ex" --solver cpu: -o "$tmp/out.h5"
expect_bad "--solver cpu:lanes=4:solve=long-double" "solve=long-double steps cells one at a time: lanes=4" run "$ex" --solver cpu:lanes=4:solve=long-double -o "$tmp/out.h5"
expect_bad "--layout" "gone" run "$ex" --solver cpu --layout interleaved -o "$tmp/out.h5"
# Typed values (run/solver_registry.hpp): each kind of bad value names the solver, the key
# and what it takes; the same checks for compare's list and parareal's coarse solver.
expect_bad "--solver cpu:lanes=3" "solver cpu: lanes=3: unknown value (lanes takes auto|1|2|4|8)" run "$ex" --solver cpu:lanes=3 -o "$tmp/out.h5"
expect_bad "--solver cpu:lanes=x" "solver cpu: lanes=x: not a whole number (lanes takes auto|1|2|4|8)" run "$ex" --solver cpu:lanes=x -o "$tmp/out.h5"
expect_bad "--solver omp:solve=quad" "solver omp: solve=quad: unknown value (solve takes double|long-double)" run "$ex" --solver omp:solve=quad -o "$tmp/out.h5"
expect_bad "--solver cpu:lanes=1:lanes=2" "solver cpu: option 'lanes' given twice" run "$ex" --solver cpu:lanes=1:lanes=2 -o "$tmp/out.h5"
expect_bad "compare omp:lanes=-1" "solver omp: lanes=-1: not a whole number (lanes takes auto|1|2|4|8)" compare "$ex" --solvers cpu,omp:lanes=-1 -o "$tmp/out_cmp"
expect_bad "coarse-solver=cpu:lanes=5" "coarse-solver=cpu:lanes=5: solver cpu: lanes=5: unknown value (lanes takes auto|1|2|4|8)" run "$ex" --time-parallel parareal:coarse-solver=cpu:lanes=5 -o "$tmp/out.h5"
if [[ $cuda == yes ]]; then
  expect_bad "gpu-fine shared=2048" "solver gpu-fine: shared=2048: out of range (shared takes 1..1024 or auto)" run "$ex" --solver gpu-fine:shared=2048 -o "$tmp/out.h5"
  expect_bad "gpu-fine sort=yes" "solver gpu-fine: sort=yes: not on or off (sort takes on|off)" run "$ex" --solver gpu-fine:sort=yes -o "$tmp/out.h5"
  expect_bad "gpu-branch cut=-1" "solver gpu-branch: cut=-1: not a whole number (cut takes N >= 0)" run "$ex" --solver gpu-branch:cut=-1 -o "$tmp/out.h5"
  expect_bad "gpu-cell block-shared block=129" "layout=block-shared with block=129: at most 128" run "$ex" --solver gpu-cell:layout=block-shared:block=129 -o "$tmp/out.h5"
  expect_bad "gpu-cell layout=bogus" "layout takes flat|interleaved|block-interleaved" run "$ex" --solver gpu-cell:layout=bogus -o "$tmp/out.h5"
  expect_bad "gpu-cell block=0" "block=0" run "$ex" --solver gpu-cell:block=0 -o "$tmp/out.h5"
  expect_bad "gpu-cell warp=1" "keys: layout, block, kernel, timing, threads" run "$ex" --solver gpu-cell:warp=1 -o "$tmp/out.h5"
  expect_bad "gpu-cell threads=48" "threads takes auto|32|64|96|128" run "$ex" --solver gpu-cell:threads=48 -o "$tmp/out.h5"
else
  expect_bad "gpu-cell without CUDA" "gpu-cell needs the CUDA build" run "$ex" --solver gpu-cell:layout=flat -o "$tmp/out.h5"
fi
# compare checks every solver of the list before it runs any (no output directory).
expect_bad "compare cpu,omp,warp" "unknown solver 'warp'" compare "$ex" --solvers cpu,omp,warp -o "$tmp/out_cmp"
bad_gpu_cell=$([[ $cuda == yes ]] && echo "kernel=fast: unknown value" || echo "gpu-cell needs the CUDA build")
expect_bad "compare bad gpu-cell" "$bad_gpu_cell" compare "$ex" --solvers cpu,omp,gpu-cell:kernel=fast -o "$tmp/out_cmp"
[[ $cuda == no ]] && expect_bad "compare cpu,omp,gpu-cell" "gpu-cell needs the CUDA build" compare "$ex" --solvers cpu,omp,gpu-cell -o "$tmp/out_cmp"
expect_bad "compare ," "names no solver" compare "$ex" --solvers , -o "$tmp/out_cmp"
exit $fail
