#!/usr/bin/env bash
# Busyring's unconnected synapses change no bit of the output: 32 cells of
# examples/busyring.json at depth 6 (about 6 expsyn on every CV), 50 ms with traces, run
# with network.unconnected-synapses=0 and with its default (`synapses`, 1,000: Arbor's
# model) on solvers cpu (lanes 1 and auto) and omp (2 threads), every synapse its own
# instance and coalesced (the builder's default, Arbor's); h5diff with no tolerance.
# `info` counts the instances.
set -u
bin=$1; root=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
model="$root/examples/busyring.json"
small=(--set network.num-cells=32 --set network.depth=6 --set network.record=true --set network.duration=50
       --set network.coalesce-synapses=false)
fail=0
"$bin" info "$model" "${small[@]}" > "$tmp/info_default" || fail=1
"$bin" info "$model" "${small[@]}" --set network.unconnected-synapses=0 > "$tmp/info_none" || fail=1
# 32 cells × (1 connected + 1,000 unconnected), and 32 × 1 without.
if grep -q "mechanism instances:.* expsyn 32032" "$tmp/info_default" && grep -q "mechanism instances:.* expsyn 32\b" "$tmp/info_none"; then
  echo "ok   info: expsyn 32032 and 32"
else echo "FAIL info's expsyn counts:"; grep "mechanism instances" "$tmp/info_default" "$tmp/info_none"; fail=1; fi
# Coalesced: the synapses on one CV one instance, fewer than 32,032.
"$bin" info "$model" "${small[@]}" --set network.coalesce-synapses=true > "$tmp/info_coalesced" || fail=1
n=$(sed -n 's/^mechanism instances:.* expsyn \([0-9]*\).*/\1/p' "$tmp/info_coalesced")
if [[ -n $n && $n -gt 32 && $n -lt 32032 ]]; then echo "ok   info: coalesced expsyn $n"
else echo "FAIL info's coalesced expsyn count: '$n'"; fail=1; fi
for solver in cpu:lanes=1 cpu omp; do
  threads=1; [[ $solver == omp ]] && threads=2
  "$bin" run "$model" "${small[@]}" --solver "$solver" --threads $threads --log-level warn -o "$tmp/default.h5" >/dev/null || fail=1
  "$bin" run "$model" "${small[@]}" --set network.unconnected-synapses=0 --solver "$solver" --threads $threads \
    --log-level warn -o "$tmp/none.h5" >/dev/null || fail=1
  if h5diff "$tmp/default.h5" "$tmp/none.h5" > "$tmp/diff" 2>&1; then echo "ok   $solver: identical"
  else echo "FAIL $solver: outputs differ"; head -20 "$tmp/diff"; fail=1; fi
  "$bin" run "$model" "${small[@]}" --set network.coalesce-synapses=true --solver "$solver" --threads $threads \
    --log-level warn -o "$tmp/coalesced.h5" >/dev/null || fail=1
  if h5diff "$tmp/coalesced.h5" "$tmp/none.h5" > "$tmp/diff" 2>&1; then echo "ok   $solver coalesced: identical"
  else echo "FAIL $solver coalesced: outputs differ"; head -20 "$tmp/diff"; fail=1; fi
done
exit $fail
