#!/usr/bin/env bash
# First device call of the ninth session: the GPU suite on main (the eighth session's
# review refactors ran there only compiled), the refactored tridiagonal benchmarks, and
# where the resident step's run time goes beyond its kernel at 8,192 busyring cells
# (--timings json; nsys's GPU trace where the machine has nsys). Binaries from
# bench/gpu_pack.sh; carry .gpu_deps and .arbor-gpu. Log: $OUT/s9a.log.
set -u
source bench/gpu_call_env.sh s9a
echo "nsys: $(command -v nsys || ls /usr/local/cuda/bin/nsys 2>/dev/null || echo none)" >> $L
run_tests
echo "== thomas regression (refactored bench)" >> $L; t0=$SECONDS
OUT=$O/th timeout 80 bash bench/thomas_regression_device.sh > $O/th.log 2>&1; echo "rc $? in $((SECONDS - t0)) s" >> $L
tail -22 $O/th.log >> $L
echo "== seed variants (refactored bench), 2,560 systems" >> $L; t0=$SECONDS
timeout 60 $P/seed_variants_bench --reps 3 --cells 2560 --budget-s 30 > $O/sv.log 2>&1; echo "rc $? in $((SECONDS - t0)) s" >> $L
tail -12 $O/sv.log | cut -c1-200 >> $L
for n in 1024 8192; do
  sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": $n/" examples/busyring.json > /tmp/b$n.json
done
echo "== busyring resident, --timings json" >> $L
for n in 1024 8192; do for s in "gpu-fine:step=resident" "gpu-fine:step=resident:timing=off" gpu-fine; do
  timeout 60 $P/arbolito run /tmp/b$n.json --tfinal 50 --solver $s --spikes-only --timings json -o /tmp/o.h5 2>/dev/null | tail -1 > /tmp/t.json
  echo "$n $s $(cat /tmp/t.json)" >> $L
done; done
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys 2>/dev/null)
if [ -n "$NSYS" ]; then
  echo "== nsys, 8,192 cells resident, 25 ms" >> $L
  timeout 120 $NSYS profile -o /tmp/r8 -t cuda,osrt --force-overwrite true $P/arbolito run /tmp/b8192.json --tfinal 25 \
     --solver gpu-fine:step=resident --spikes-only -o /tmp/o.h5 > /tmp/nsys.log 2>&1
  timeout 60 $NSYS stats --report cuda_gpu_kern_sum,cuda_gpu_mem_time_sum,cuda_api_sum --format csv -o /tmp/r8s /tmp/r8.nsys-rep >> /tmp/nsys.log 2>&1
  timeout 60 $NSYS stats --report cuda_gpu_trace --format csv -o /tmp/r8t /tmp/r8.nsys-rep >> /tmp/nsys.log 2>&1
  cp /tmp/r8s*.csv /tmp/r8t*.csv $O/ 2>/dev/null; tail -5 /tmp/nsys.log >> $L
fi
echo "== done in $SECONDS s" >> $L
cat $L
