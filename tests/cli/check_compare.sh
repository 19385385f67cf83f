#!/usr/bin/env bash
# arbolito compare's columns and verdict on two CPU solvers that give the same bits (the
# ring, 40 ms): the table, compare.csv and compare.json carry spike counts, the largest
# spike-time difference and bitwise identity per solver; they agree (exit 0) at the
# default tolerances and at a tolerance of 0; a bad tolerance is an input error (exit 2)
# before anything runs. docs/compare.md has the verdict.
# Usage: check_compare.sh ARBOLITO PYTHON SOURCE_DIR
set -u
bin=$1; py=$2; src=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $1"; [[ -f "$tmp/stderr" ]] && cat "$tmp/stderr"; fail=1; }
ok() { echo "ok   $1"; }
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
exit $fail
