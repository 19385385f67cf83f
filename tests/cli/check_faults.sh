#!/usr/bin/env bash
# Faults during a run: signals, a full disk, blow-ups, a bad -o, -o naming an input and two
# runs given the same -o. Each ends
# with one line and its exit status; what was simulated stays as a readable .partial
# (checked with h5py and accepted by tools/plot_traces.py).
# Usage: check_faults.sh ARBOLITO PYTHON SOURCE_DIR
set -u
bin=$1; py=$2; src=$3
. "$(dirname "$0")/common.sh"
# The .partial's time stop and interrupted attribute, and how many spikes it holds.
inspect() {
  "$py" - "$1" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
pop = next(iter(f["report"])) if "report" in f else None
stop = f[f"report/{pop}/mapping/time"][1] if pop else -1
frames = f[f"report/{pop}/data"].shape[0] if pop else 0
spikes = sum(len(g["timestamps"]) for g in f["spikes"].values()) if "spikes" in f else -1
print(f"{stop:.6g} {frames} {spikes} {f.attrs.get('interrupted', '')}")
PY
}
ring="$src/examples/ring.json"

# --- SIGTERM and SIGINT: stop at the next epoch boundary, exit 128 + signal ----------
for sig in TERM INT; do
  want=$([[ $sig == TERM ]] && echo 143 || echo 130)
  out="$tmp/sig_$sig.h5"
  "$bin" run "$ring" --tfinal 1e6 -o "$out" 2>"$tmp/stderr" &
  pid=$!
  sleep 1.5
  kill -$sig $pid
  wait $pid; rc=$?
  read -r stop frames spikes why < <(inspect "$out.partial" 2>/dev/null)
  if [[ $rc -ne $want ]]; then bad "SIG$sig: exit $rc, expected $want"
  elif [[ $(errors) -ne 1 ]] || ! grep -q "stopped by SIG$sig at t = " "$tmp/stderr"; then bad "SIG$sig: not one line saying so"
  elif [[ -z "${stop:-}" ]] || ! "$py" -c "import sys; s=float('$stop'); sys.exit(0 if 0 < s < 1e6 else 1)"; then bad "SIG$sig: time stop '${stop:-}'"
  elif [[ "$why" != "stopped by SIG$sig at t = "* || ${spikes:--1} -lt 1 ]]; then bad "SIG$sig: attribute '$why', spikes ${spikes:-}"
  elif ! "$py" "$src/tools/plot_traces.py" "$out.partial" -o "$tmp/sig.png" >/dev/null 2>&1 || [[ ! -s "$tmp/sig.png" ]]; then bad "SIG$sig: plot_traces.py refuses the file"
  else ok "SIG$sig: exit $rc, $frames frames to $stop ms, $spikes spikes: $(grep -E "^\[(error|warning|critical)\]" "$tmp/stderr")"; fi
  rm -f "$tmp/sig.png"
done

# --- Killed at once (a second signal's default action, SIGKILL, the OOM killer): the file of
# the last flush stays, and opens as SONATA (its interrupted says the run had not ended) --
out="$tmp/killed.h5"
"$bin" run "$ring" --tfinal 1e6 -o "$out" 2>"$tmp/stderr" &
pid=$!
sleep 1
kill -KILL $pid
wait $pid; rc=$?
# rows, and the frames the time stop counts: equal in a SONATA file
read -r rows counted why < <("$py" - "$out.partial" <<'PY' 2>/dev/null
import sys, h5py
f = h5py.File(sys.argv[1], "r")
t = f["report/ring/mapping/time"][:]
print(f["report/ring/data"].shape[0], round((t[1] - t[0]) / t[2]), f.attrs.get("interrupted", "")[:20])
PY
)
if [[ $rc -ne 137 ]]; then bad "SIGKILL: exit $rc, expected 137"
elif [[ -z "${rows:-}" || $rows -lt 1 || $rows -ne $counted ]]; then bad "SIGKILL: the .partial does not open as SONATA (${rows:-no file} rows, ${counted:-} by the time stop)"
elif [[ "$why" != "the run had not ende"* ]]; then bad "SIGKILL: interrupted '$why'"
else ok "SIGKILL: the last flush's $rows frames open, interrupted '$why...'"; fi

# --- A stop during a long epoch: no later than a step after the signal -----------------
# One cell of 100,000 CVs without connections: epochs of 10 ms, each over a second of work.
# The run stops in the epoch being integrated and ends at its start (t = 0 ms), where it
# used to finish that epoch and the next one.
for mode in pipeline no-pipeline; do
  out="$tmp/long_$mode.h5"
  args=(); [[ $mode == no-pipeline ]] && args=(--no-pipeline)
  "$bin" run "$src/tests/data/signals/long_epochs.json" "${args[@]}" -o "$out" 2>"$tmp/stderr" &
  pid=$!
  for _ in $(seq 200); do [[ -s "$out.partial" ]] && break; sleep 0.02; done
  sleep 0.3
  kill -INT $pid; t0=$(date +%s.%N)
  wait $pid; rc=$?
  took=$("$py" -c "import time; print(f'{time.time() - $t0:.2f}')")
  read -r stop frames spikes why < <(inspect "$out.partial" 2>/dev/null)
  if [[ $rc -ne 130 ]]; then bad "SIGINT in a long epoch ($mode): exit $rc"
  elif [[ "$why" != "stopped by SIGINT at t = 0 ms" ]]; then bad "SIGINT in a long epoch ($mode): '$why' (not in the epoch being integrated)"
  elif ! "$py" -c "import sys; sys.exit(0 if $took < 3 else 1)"; then bad "SIGINT in a long epoch ($mode): took $took s"
  else ok "SIGINT in a long epoch ($mode): exit 130 after $took s, $why"; fi
done

# --- A full disk: RLIMIT_FSIZE makes writes past a size fail (EFBIG), as ENOSPC would ---
# (the limit holds for every file the run writes, so its stderr goes through a pipe)
limited() {  # KB, arbolito args...: exit status in rc, stderr in $tmp/stderr
  local kb=$1; shift
  ( trap '' XFSZ; ulimit -f "$kb"; exec "$bin" "$@" 2>&1 >/dev/null ) | cat >"$tmp/stderr"
  rc=${PIPESTATUS[0]}
}
out="$tmp/full.h5"
limited 4096 run "$ring" --tfinal 50000 -o "$out"  # 32 MB of frames, chunks of 1 MiB
read -r stop frames spikes why < <(inspect "$out.partial" 2>/dev/null)
if [[ $rc -ne 1 ]]; then bad "full disk: exit $rc, expected 1"
elif [[ $(errors) -ne 1 ]] || ! grep -q "full.h5.partial: cannot write: File too large" "$tmp/stderr"; then bad "full disk: not one line naming path and cause"
elif [[ -z "${frames:-}" || ${frames:-0} -lt 1 ]]; then bad "full disk: nothing kept (${frames:-no readable file})"
else ok "full disk: exit 1, kept $frames frames to $stop ms: $(grep -E "^\[(error|warning|critical)\]" "$tmp/stderr")"; fi
out="$tmp/none.h5"
limited 0 run "$ring" -o "$out"
if [[ $rc -ne 1 ]] || compgen -G "$out*" >/dev/null || [[ $(errors) -ne 1 ]]; then bad "no room at all: exit $rc or a file left"
else ok "no room at all: exit 1, no file: $(grep -E "^\[(error|warning|critical)\]" "$tmp/stderr")"; fi
out="$tmp/spikes.h5"
limited 16 run "$ring" --tfinal 200000 --spikes-only -o "$out"
if [[ $rc -ne 1 ]] || [[ $(errors) -ne 1 ]] || ! grep -q "cannot write" "$tmp/stderr"; then bad "spikes-only, full disk: exit $rc"
else ok "spikes-only, full disk: exit 1: $(grep -E "^\[(error|warning|critical)\]" "$tmp/stderr")"; fi

# --- Blow-ups: exit 1, one line naming gid, CV, time; output kept to the last sound epoch ---
for name in iclamp_1e300 weight_1e308 v_init_1e300; do
  out="$tmp/$name.h5"
  "$bin" run "$src/tests/data/blowups/$name.json" -o "$out" 2>"$tmp/stderr"; rc=$?
  read -r stop frames spikes why < <(inspect "$out.partial" 2>/dev/null)
  want_frames=$([[ $name == v_init_1e300 ]] && echo 0 || echo 201)
  if [[ $rc -ne 1 ]]; then bad "$name: exit $rc, expected 1"
  elif [[ $(errors) -ne 1 ]] || ! grep -q "voltage blew up: gid 0, CV on branch 0 at x = 0: v = .* at t = " "$tmp/stderr"; then bad "$name: not one line naming the place"
  elif [[ "${frames:-}" != "$want_frames" || "$why" != "voltage blew up"* ]]; then bad "$name: kept ${frames:-?} frames (expected $want_frames), attribute '$why'"
  else ok "$name: exit 1, $frames frames kept: $(grep -E "^\[(error|warning|critical)\]" "$tmp/stderr")"; fi
done

# --- -o checked before the run: exit 2, one line, nothing written --------------------
mkdir -p "$tmp/adir"
expect_2() {  # label, text, arbolito args...
  local label=$1 text=$2; shift 2
  "$bin" "$@" >/dev/null 2>"$tmp/stderr"; local rc=$?
  if [[ $rc -ne 2 || $(errors) -ne 1 ]] || ! grep -qF -- "$text" "$tmp/stderr" || grep -q "wrote" "$tmp/stderr"; then bad "$label: exit $rc"
  else ok "$label: $(grep -E "^\[(error|warning|critical)\]" "$tmp/stderr")"; fi
}
expect_2 "-o directory" "adir: is a directory" run "$ring" -o "$tmp/adir"
expect_2 "-o ''" "-o: empty file name" run "$ring" -o ""
expect_2 "-o /dev/null" "/dev/null: is a device" run "$ring" -o /dev/null
expect_2 "-o missing folder" "does not exist" run "$ring" -o "$tmp/no/such/out.h5"
expect_2 "--timeline directory" "adir: is a directory: --timeline must be a file name" run "$ring" -o "$tmp/t.h5" --timeline "$tmp/adir"
expect_2 "--timeline ''" "--timeline: empty file name" run "$ring" -o "$tmp/t.h5" --timeline ""
expect_2 "--timeline missing folder" "does not exist" run "$ring" -o "$tmp/t.h5" --timeline "$tmp/no/such/t.csv"
expect_2 "--timeline the output" "--timeline must name another file" run "$ring" -o "$tmp/t.h5" --timeline "$tmp/./t.h5"
compgen -G "$tmp/t.h5*" >/dev/null && bad "--timeline refused: an output was left"
# -o naming an input of the model, however spelt (compared by file: device and inode):
# refused, and the input is left as it was.
cp "$ring" "$tmp/m.json"; mkdir -p "$tmp/sub"; ln -s "$tmp/m.json" "$tmp/link.json"
sum_before=$(md5sum < "$tmp/m.json")
expect_2 "-o the model file" "is the model file" run "$tmp/m.json" -o "$tmp/m.json"
expect_2 "-o the model file via sub/.." "is the model file" run "$tmp/m.json" -o "$tmp/sub/../m.json"
expect_2 "-o a link to the model file" "is the model file" run "$tmp/m.json" -o "$tmp/link.json"
expect_2 "--timeline the model file" "--timeline must name another file" run "$tmp/m.json" -o "$tmp/t2.h5" --timeline "$tmp/m.json"
[[ $(md5sum < "$tmp/m.json") == "$sum_before" ]] || bad "-o the model file: the model file changed"
swc="$src/tests/data/morphologies/ca1_pyramidal_n120.swc"
swc_sum=$(md5sum < "$swc")
expect_2 "-o the SWC file" "is the SWC file of cells[0].morphology.swc" run "$src/examples/single_cell.json" -o "$src/tests/data/morphologies/../morphologies/ca1_pyramidal_n120.swc"
[[ $(md5sum < "$swc") == "$swc_sum" ]] || bad "-o the SWC file: the SWC file changed"
# Two runs given the same -o: the second is refused at once (exit 2, nothing touched); the
# first runs on and keeps its file.
out="$tmp/shared.h5"
"$bin" run "$ring" --tfinal 1e6 -o "$out" 2>"$tmp/first.stderr" &
pid=$!
for _ in $(seq 100); do [[ -e "$out.partial" ]] && break; sleep 0.02; done
expect_2 "a second run on the same -o" "another run is writing this output now" run "$ring" -o "$out"
sleep 1
kill -TERM $pid; wait $pid; rc=$?
read -r stop frames spikes why < <(inspect "$out.partial" 2>/dev/null)
if [[ $rc -ne 143 || "$why" != "stopped by SIGTERM"* || ${frames:-0} -lt 1 ]]; then bad "the first run on a shared -o: exit $rc, '${why:-no readable file}'"
else ok "the first run on a shared -o: exit $rc, $frames frames of its own"; fi
# info --geometry where the disk takes nothing (/dev/full): exit 1 naming the cause, not
# "wrote"; naming the model file: exit 2.
"$bin" info "$ring" --geometry /dev/full >/dev/null 2>"$tmp/stderr"; rc=$?
if [[ $rc -ne 1 || $(errors) -ne 1 ]] || ! grep -q "/dev/full: cannot write: No space left on device" "$tmp/stderr" || grep -q wrote "$tmp/stderr"; then bad "info --geometry /dev/full: exit $rc"
else ok "info --geometry /dev/full: exit 1: $(grep -E '^\[error\]' "$tmp/stderr")"; fi
expect_2 "info --geometry the model file" "--geometry must name another file" info "$tmp/m.json" --geometry "$tmp/sub/../m.json"
[[ $(md5sum < "$tmp/m.json") == "$sum_before" ]] || bad "info --geometry the model file: the model file changed"
# 100,000 cells' probes for 8e8 steps (within the 1e9 a run may take): ~160 TB of frames.
expect_2 "no room for the output" "the output needs about" run "$ring" --set 'cells[0].count=100000' --tfinal 2e7 -o "$tmp/huge.h5"
compgen -G "$tmp/huge.h5*" >/dev/null && bad "no room: a file was left"
exit $fail
