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
  if [[ "$name" != malformed_swc && "$msg" != *"$name.json"* && "$msg" != *"no_such_cell"* ]]; then
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
# Solver specs (docs/solvers.md): one error naming the option and what is allowed. A GPU
# solver in a CPU-only build says it needs the CUDA build.
cuda=$("$bin" info | grep -q "gpu-cell (needs the CUDA build)" && echo no || echo yes)
expect_bad "--solver warp" "this build has: cpu, omp" run "$ex" --solver warp -o "$tmp/out.h5"
expect_bad "--solver omp:warp=1" "unknown option 'warp' (keys: lanes)" run "$ex" --solver omp:warp=1 -o "$tmp/out.h5"
expect_bad "--solver cpu:" "is not KEY=VALUE" run "$ex" --solver cpu: -o "$tmp/out.h5"
expect_bad "--layout" "gone" run "$ex" --solver cpu --layout interleaved -o "$tmp/out.h5"
if [[ $cuda == yes ]]; then
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
expect_bad "compare ," "names no solver" compare "$ex" --solvers , -o "$tmp/out_cmp"
exit $fail
