# Sourced by the focus scripts: br CELLS TFINAL ARGS... runs busyring with CELLS cells for
# TFINAL ms (spikes only, --timings json) with the arbolito in $P, logging to $L, scratch
# in $T. Prints the run's JSON line into the log.
br() {
  local c=$1 tf=$2; shift 2
  sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": $c/" examples/busyring.json > "$T/m.json"
  echo "== busyring cells=$c tfinal=$tf $*" >> "$L"
  timeout 300 "$P/arbolito" run "$T/m.json" --tfinal "$tf" --spikes-only --timings json -o "$T/o.h5" "$@" 2>>"$L" | tail -1 >> "$L"
  rm -f "$T/o.h5"
}
