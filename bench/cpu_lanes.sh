#!/usr/bin/env bash
# the CPU backend's SIMD lanes on one core, every variant side by side in
# one run: busyring (bench/models/busyring64.json's network, Arbor's parameters) with
# `--solver cpu:lanes=W` for W = 1 (the scalar path) and each wider width, an older
# arbolito binary for "today's" scalar figure (--baseline BIN), and Arbor 0.12.2 from PyPI
# on the same network (bench/arbor_busyring.py, where `import arbor` works). Variants run
# interleaved, REPS rounds; the table gives the minimum run time of each (run = the
# integration, no set-up; arbolito without the exchange thread, --no-pipeline, so that
# each runs on one core), ns per CV-step and the ratios.
#
# Usage: bench/cpu_lanes.sh [--cells "64 1024"] [--tfinal "200 50"] [--reps 5] [--build DIR]
#                           [--bin ARBOLITO] [--baseline BIN] [--lanes "1 2 4 8"] [--no-arbor]
#   --tfinal: one per --cells entry (1,024 cells × 200 ms take a minute a run on one core)
# Prints the table; the raw JSON lines go to bench/out/cpu_lanes.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
cells="64 1024"; tfinals="200 50"; reps=5; build=build; bin=""; baseline=""; lanes="1 2 4 8"; arbor=1
while [ $# -gt 0 ]; do
  case $1 in
    --cells) cells=$2; shift 2 ;;
    --tfinal) tfinals=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --lanes) lanes=$2; shift 2 ;;
    --no-arbor) arbor=0; shift ;;
    *) echo "usage: $0 [--cells LIST] [--tfinal LIST] [--reps N] [--build DIR] [--baseline BIN] [--lanes LIST] [--no-arbor]" >&2; exit 2 ;;
  esac
done
bin=${bin:-$build/app/arbolito}
[ -x "$bin" ] || { echo "no arbolito at $bin (--build DIR)" >&2; exit 1; }
py=${PYTHON:-python3}
if [ "$arbor" = 1 ] && ! $py -c "import arbor" 2>/dev/null; then
  echo "(Arbor from PyPI not importable by $py: no Arbor rows; pip install arbor==0.12.2)" >&2; arbor=0
fi
export OMP_NUM_THREADS=1
out=bench/out; mkdir -p $out; raw=$out/cpu_lanes.jsonl; : > $raw
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc --all) cores; arbolito $(git rev-parse --short HEAD), lanes auto: $($bin info bench/models/busyring64.json 2>/dev/null | sed -n "s/^CPU SIMD lanes: //p")"
set -- $tfinals
for c in $cells; do
  tf=$1; shift || true
  model=$tmp/busyring$c.json
  sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": $c/" bench/models/busyring64.json > $model
  variants=()
  for w in $lanes; do variants+=("lanes=$w"); done
  [ -n "$baseline" ] && variants+=(baseline)
  [ "$arbor" = 1 ] && variants+=(arbor)
  for ((r = 0; r < reps; r++)); do
    for v in "${variants[@]}"; do
      case $v in
        lanes=*) line=$($bin run $model --tfinal $tf --solver cpu:$v --no-pipeline --spikes-only --timings json -o $tmp/o.h5 2>/dev/null | tail -1) ;;
        baseline) line=$($baseline run $model --tfinal $tf --solver cpu --no-pipeline --spikes-only --timings json -o $tmp/o.h5 2>/dev/null | tail -1) ;;
        arbor) line=$($py bench/arbor_busyring.py $model --tfinal $tf --threads 1 --reps 1 --arbolito $bin 2>/dev/null | tail -1) ;;
      esac
      echo "{\"cells\": $c, \"tfinal\": $tf, \"variant\": \"$v\", \"result\": $line}" >> $raw
    done
  done
done
$py - "$raw" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def run_s(r):
    x = r["result"]
    return x.get("run_s_min", x.get("run"))
for c in sorted({r["cells"] for r in rows}):
    sub = [r for r in rows if r["cells"] == c]
    best = {}
    for r in sub:
        v = r["variant"]
        if v not in best or run_s(r) < run_s(best[v]): best[v] = r
    tf = sub[0]["tfinal"]
    print(f"\nbusyring {c} cells x {tf} ms, one core, min of {len(sub) // len(best)} runs")
    print(f"{'variant':<12} {'run s':>8} {'ns/CV-step':>11} {'spikes':>7} {'vs lanes=1':>11} {'vs baseline':>12} {'vs Arbor':>9}")
    ref = run_s(best["lanes=1"]) if "lanes=1" in best else None
    base = run_s(best["baseline"]) if "baseline" in best else None
    arb = run_s(best["arbor"]) if "arbor" in best else None
    for v, r in best.items():
        s = run_s(r)
        x = r["result"]
        spikes = x.get("n_spikes", x.get("spikes"))
        f = lambda a: f"{a / s:.2f}x" if a else "-"
        print(f"{v:<12} {s:8.3f} {x['ns_per_cv_step']:11.3f} {spikes:>7} {f(ref):>11} {f(base):>12} {f(arb):>9}")
PY
