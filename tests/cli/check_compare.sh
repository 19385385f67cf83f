#!/usr/bin/env bash
# arbolito compare's columns and verdict on two CPU solvers that give the same bits (the
# ring, 40 ms): the table, compare.csv and compare.json carry spike counts, the largest
# spike-time difference and bitwise identity per solver; they agree (exit 0) at the
# default tolerances and at a tolerance of 0; a bad tolerance, or a solver that cannot run
# on this machine, is an input error (exit 2) before anything runs. SIGINT and SIGTERM stop
# it at an epoch boundary (exit 128 + signal), keeping the stopped solver's file as a
# readable .h5.partial and the results of those that ran. docs/compare.md has the verdict.
# Usage: check_compare.sh ARBOLITO PYTHON SOURCE_DIR
set -u
bin=$1; py=$2; src=$3
. "$(dirname "$0")/common.sh"
ring="$src/examples/ring.json"
solvers=cpu,cpu:lanes=1

# compare.csv and compare.json against what the run must say: every row the reference's
# spike count (and some spikes), no time difference, bitwise identical, the verdict, the
# tolerances (ms, mV) and the traces' state.
check_files() {  # DIR VERDICT SPIKE_TOL VOLTAGE_TOL TRACES
  "$py" - "$@" <<'PY'
import csv, json, sys
d, verdict, stol, vtol, traces = sys.argv[1:]
rows = list(csv.DictReader(open(f"{d}/compare.csv")))
js = json.load(open(f"{d}/compare.json"))
assert [r["solver"] for r in rows] == ["cpu", "cpu:lanes=1"] == [j["solver"] for j in js], "solvers"
for r, j in zip(rows, js):
    want = "reference" if r is rows[0] else verdict
    assert r["verdict"] == j["verdict"] == want, f"verdict {r['verdict']} {j['verdict']}"
    n = int(r["n_spikes"])
    assert n > 0 and n == int(r["n_spikes_ref"]) == j["n_spikes"] == j["n_spikes_ref"], "spike counts"
    assert int(r["n_spikes_diff"]) == j["n_spikes_diff"] == 0, "spike count difference"
    assert int(r["spike_trains_count_differ"]) == j["spike_trains_count_differ"] == 0, "trains"
    assert float(r["max_spike_dt_ms"]) == j["max_spike_dt_ms"] == 0, "spike-time difference"
    assert r["spikes_identical"] == "yes" and j["spikes_identical"] is True, "bitwise"
    assert float(r["spike_tolerance_ms"]) == j["spike_tolerance_ms"] == float(stol), "spike tolerance"
    assert float(r["voltage_tolerance_mV"]) == j["voltage_tolerance_mV"] == float(vtol), "voltage tolerance"
    assert r["traces"] == j["traces"] == traces, "traces"
    if traces == "compared":
        assert float(r["max_abs_dv_mV"]) == j["max_abs_dv_mV"] == 0, "trace difference"
    else:
        assert r["max_abs_dv_mV"] == "nan" and j["max_abs_dv_mV"] is None, "no trace difference"
    assert j["why"] == [], "reasons"
PY
}

# --- default tolerances: 1e-4 dt (dt = 0.025 ms) and 400 mV/ms times that -------------
"$bin" compare "$ring" --solvers $solvers --tfinal 40 -o "$tmp/default" >"$tmp/stdout" 2>"$tmp/stderr"; rc=$?
if [[ $rc -ne 0 ]]; then bad "default tolerances: exit $rc, expected 0"
elif ! grep -Eq '^solver +setup_s .* max\|dV\|_mV +spikes +d_spikes +max\|dt\|_ms +bitwise +verdict$' "$tmp/stdout"; then bad "default tolerances: table header"; cat "$tmp/stdout"
elif ! grep -Eq '^cpu:lanes=1 .* [0-9]+ +\+0 +0 +yes +agree$' "$tmp/stdout"; then bad "default tolerances: table row"; cat "$tmp/stdout"
elif ! grep -q '^verdict against cpu: all agree (spike counts equal, spike times within 2.5e-06 ms, traces within 0.001 mV)$' "$tmp/stdout"; then bad "default tolerances: verdict line"; cat "$tmp/stdout"
elif ! msg=$(check_files "$tmp/default" agree 2.5e-6 1e-3 compared 2>&1); then bad "default tolerances: files: $msg"
else ok "default tolerances: columns, exit 0"; fi

# --- tolerance 0: the solvers give the same bits, so they still agree ------------------
"$bin" compare "$ring" --solvers $solvers --tfinal 40 -o "$tmp/zero" --spike-tolerance 0 >"$tmp/stdout" 2>"$tmp/stderr"; rc=$?
if [[ $rc -ne 0 ]]; then bad "tolerance 0: exit $rc, expected 0"
elif ! grep -q '^verdict against cpu: all agree (spike counts equal, spike times within 0 ms, traces within 0 mV)$' "$tmp/stdout"; then bad "tolerance 0: verdict line"; cat "$tmp/stdout"
elif ! msg=$(check_files "$tmp/zero" agree 0 0 compared 2>&1); then bad "tolerance 0: files: $msg"
else ok "tolerance 0: bitwise identical, exit 0"; fi

# --- --spikes-only: no traces to judge -------------------------------------------------
"$bin" compare "$ring" --solvers $solvers --tfinal 40 -o "$tmp/spikes" --spikes-only --spike-tolerance 0 \
  --voltage-tolerance 0 >"$tmp/stdout" 2>"$tmp/stderr"; rc=$?
if [[ $rc -ne 0 ]]; then bad "--spikes-only: exit $rc, expected 0"
elif ! grep -q '^verdict against cpu: all agree (spike counts equal, spike times within 0 ms, no traces recorded)$' "$tmp/stdout"; then bad "--spikes-only: verdict line"; cat "$tmp/stdout"
elif ! msg=$(check_files "$tmp/spikes" agree 0 0 none 2>&1); then bad "--spikes-only: files: $msg"
else ok "--spikes-only: traces none, exit 0"; fi

# --- a tolerance that is none: one error line naming the option, exit 2, nothing written
for opt in "--spike-tolerance -1" "--voltage-tolerance nan"; do
  "$bin" compare "$ring" --solvers $solvers -o "$tmp/bad" $opt >"$tmp/stdout" 2>"$tmp/stderr"; rc=$?
  if [[ $rc -ne 2 ]]; then bad "$opt: exit $rc, expected 2"
  elif [[ $(grep -c '^\[error\]' "$tmp/stderr") -ne 1 ]] || ! grep -q "^\[error\] ${opt% *}: .* is no tolerance" "$tmp/stderr"; then bad "$opt: not one line naming the option"
  elif [[ -e "$tmp/bad" ]]; then bad "$opt: output directory made"
  else ok "$opt: exit 2"; fi
done

# --- a GPU solver without a usable device (a CPU-only build, or CUDA_VISIBLE_DEVICES=-1
# hiding the GPUs of a CUDA build): exit 2 naming it, before cpu runs, no directory ------
CUDA_VISIBLE_DEVICES=-1 "$bin" compare "$ring" --solvers cpu,gpu-fine --tfinal 10 -o "$tmp/nogpu" \
  >"$tmp/stdout" 2>"$tmp/stderr"; rc=$?
if [[ $rc -ne 2 ]]; then bad "cpu,gpu-fine without a device: exit $rc, expected 2"
elif ! grep -Eq 'gpu-fine.*needs (the CUDA build|a CUDA device)' "$tmp/stderr"; then bad "cpu,gpu-fine without a device: not naming gpu-fine and why"
elif grep -q 'compare: cpu' "$tmp/stderr"; then bad "cpu,gpu-fine without a device: cpu ran first"
elif [[ -e "$tmp/nogpu" ]]; then bad "cpu,gpu-fine without a device: output directory made"
else ok "cpu,gpu-fine without a device: exit 2: $(head -n 1 "$tmp/stderr")"; fi

# --- signals -----------------------------------------------------------------------------
# Waits for pid; one that has not ended 30 s after its signal is killed (the stop failed):
# exit status 137 then.
reap() {
  for _ in $(seq 300); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$1" 2>/dev/null && kill -KILL "$1"
  wait "$1"
}
# A file's frame count, whether they are all its time axis promises, and its interrupted
# attribute ("" for none): it opens with h5py.
opens() {
  "$py" - "$1" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    pop = next(iter(f["report"]))
    start, stop, step = f[f"report/{pop}/mapping/time"][:]
    frames = f[f"report/{pop}/data"].shape[0]
    print(frames, "whole" if frames == round((stop - start) / step) else "part", f.attrs.get("interrupted", ""))
PY
}
# The rows of compare.csv and compare.json: solver, verdict, file and, for a stopped solver,
# agreement to where it stopped (cpu and cpu:lanes=1 give the same bits).
results() {  # DIR SOLVER:VERDICT...
  "$py" - "$@" <<'PY'
import csv, json, sys
d, want = sys.argv[1], [w.rsplit(":", 1) for w in sys.argv[2:]]
rows = list(csv.DictReader(open(f"{d}/compare.csv")))
js = json.load(open(f"{d}/compare.json"))
assert [[r["solver"], r["verdict"]] for r in rows] == want == [[j["solver"], j["verdict"]] for j in js], (rows, want)
for r, j in zip(rows, js):
    stopped = r["verdict"] == "interrupted"
    assert r["file"] == j["file"] and r["file"].endswith(".h5.partial" if stopped else ".h5"), r["file"]
    assert (j["interrupted"] or "").startswith("stopped by SIG") == stopped, j["interrupted"]
    assert r["spikes_identical"] == "yes" and r["n_spikes"] == r["n_spikes_ref"], "spikes to the stop"
    assert r["traces"] == "compared" and float(r["max_abs_dv_mV"]) == 0, "traces to the stop"
PY
}

# SIGINT while the first solver runs: it stops at an epoch boundary, cpu.h5.partial is
# SONATA, compare.csv holds its row, the second never starts. Exit 130.
out="$tmp/int"
"$bin" compare "$ring" --solvers $solvers --tfinal 1e6 -o "$out" >"$tmp/stdout" 2>"$tmp/stderr" &
pid=$!
sleep 1.5
kill -INT $pid; reap $pid; rc=$?
read -r frames whole why < <(opens "$out/cpu.h5.partial" 2>/dev/null)
if [[ $rc -ne 130 ]]; then bad "SIGINT: exit $rc, expected 130"
elif [[ ${frames:-0} -lt 1 || "${whole:-}" != whole || "${why:-}" != "stopped by SIGINT at t = "* ]]; then bad "SIGINT: cpu.h5.partial: '${why:-unreadable}', ${frames:-no} frames"
elif compgen -G "$out/cpu_lanes=1.h5*" >/dev/null; then bad "SIGINT: the second solver ran"
elif ! msg=$(results "$out" cpu:interrupted 2>&1); then bad "SIGINT: results: $msg"
elif ! grep -Eq '^cpu .* interrupted$' "$tmp/stdout"; then bad "SIGINT: no table"; cat "$tmp/stdout"
else ok "SIGINT in the first solver: exit 130, $frames frames in cpu.h5.partial, one row"; fi

# SIGTERM once the second solver has started (its .partial exists): cpu.h5 whole, the
# second's .partial SONATA, both rows in the results, the second compared to its stop. Exit 143.
out="$tmp/term"
"$bin" compare "$ring" --solvers $solvers --tfinal 3000 -o "$out" >"$tmp/stdout" 2>"$tmp/stderr" &
pid=$!
for _ in $(seq 1500); do [[ -e "$out/cpu_lanes=1.h5.partial" ]] && break; sleep 0.02; done
kill -TERM $pid; reap $pid; rc=$?
read -r frames1 whole1 why1 < <(opens "$out/cpu.h5" 2>/dev/null)
read -r frames whole why < <(opens "$out/cpu_lanes=1.h5.partial" 2>/dev/null)
if [[ $rc -ne 143 ]]; then bad "SIGTERM: exit $rc, expected 143"
elif [[ "${whole1:-}" != whole || -n "${why1:-}" ]]; then bad "SIGTERM: cpu.h5 not whole (${frames1:-unreadable} frames)"
elif [[ ${frames:-0} -lt 1 || "${whole:-}" != whole || "${why:-}" != "stopped by SIGTERM at t = "* ]]; then bad "SIGTERM: cpu_lanes=1.h5.partial: '${why:-unreadable}', ${frames:-no} frames"
elif ! msg=$(results "$out" cpu:reference cpu:lanes=1:interrupted 2>&1); then bad "SIGTERM: results: $msg"
else ok "SIGTERM in the second solver: exit 143, cpu.h5 whole, $frames frames in cpu_lanes=1.h5.partial, two rows"; fi

# A second SIGINT 50 ms after the first, within the second solver's epoch (64 busyring
# cells: epochs of about 0.2 s on two loaded cores) ends compare at once: the finished solver's file is
# whole and the results, rewritten whole after each solver, hold its row. (The running
# solver's .partial is what a second signal leaves of run's file; not judged here.)
out="$tmp/twice"
"$bin" compare "$src/examples/busyring.json" --set network.num-cells=64 --set network.record=true \
  --solvers $solvers --tfinal 50 -o "$out" >"$tmp/stdout" 2>"$tmp/stderr" &
pid=$!
for _ in $(seq 1500); do [[ -e "$out/cpu_lanes=1.h5.partial" ]] && break; sleep 0.02; done
sleep 0.2
kill -INT $pid; sleep 0.05; kill -INT $pid 2>/dev/null; reap $pid; rc=$?
read -r frames1 whole1 why1 < <(opens "$out/cpu.h5" 2>/dev/null)
if [[ $rc -ne 130 ]]; then bad "second SIGINT: exit $rc, expected 130"
elif [[ "${whole1:-}" != whole || -n "${why1:-}" ]]; then bad "second SIGINT: cpu.h5 not whole (${frames1:-unreadable} frames)"
elif ! msg=$("$py" -c "
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1] + '/compare.csv')))
js = json.load(open(sys.argv[1] + '/compare.json'))
assert rows[0]['solver'] == js[0]['solver'] == 'cpu' and rows[0]['verdict'] == 'reference', rows
assert len(rows) == len(js) in (1, 2), len(rows)" "$out" 2>&1); then bad "second SIGINT: results: $msg"
else ok "second SIGINT: exit 130, cpu.h5 whole, the results hold its row"; fi
exit $fail
