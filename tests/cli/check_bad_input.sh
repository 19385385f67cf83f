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
# A model file that does not exist, and a bad command-line value.
"$bin" run "$dir/does_not_exist.json" -o "$tmp/out.h5" 2>"$tmp/stderr"; rc=$?
if [[ $rc -ne 2 ]] || ! grep -q does_not_exist "$tmp/stderr"; then echo "FAIL missing model: exit $rc"; fail=1; else echo "ok   missing model file"; fi
"$bin" run "$dir/../../../examples/ball_and_stick.json" --dt -1 -o "$tmp/out.h5" 2>"$tmp/stderr"; rc=$?
if [[ $rc -ne 2 ]] || ! grep -q -- "--dt" "$tmp/stderr" || compgen -G "$tmp/out.h5*" >/dev/null; then echo "FAIL --dt -1: exit $rc"; fail=1; else echo "ok   --dt -1"; fi
"$bin" run "$dir/../../../examples/ball_and_stick.json" --solver warp -o "$tmp/out.h5" 2>"$tmp/stderr"; rc=$?
if [[ $rc -ne 2 ]] || ! grep -q "warp" "$tmp/stderr" || compgen -G "$tmp/out.h5*" >/dev/null; then echo "FAIL --solver warp: exit $rc"; fail=1; else echo "ok   --solver warp"; fi
# A bad GPU layout is bad input (exit 2) whether or not the build has CUDA or a device:
# named in the error (or, without the CUDA backend, the backend is).
for lay in bogus block-interleaved:0 "interleaved+warp"; do
  "$bin" run "$dir/../../../examples/ball_and_stick.json" --solver gpu-cell --layout "$lay" -o "$tmp/out.h5" 2>"$tmp/stderr"; rc=$?
  if [[ $rc -ne 2 ]] || ! grep -qF -e "$lay" -e "CUDA backend" "$tmp/stderr" || compgen -G "$tmp/out.h5*" >/dev/null; then
    echo "FAIL --layout $lay: exit $rc"; cat "$tmp/stderr"; fail=1
  else echo "ok   --layout $lay"; fi
done
exit $fail
