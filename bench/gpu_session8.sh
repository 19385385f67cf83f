#!/usr/bin/env bash
# Device call of the eighth session (bench/RESULTS.md, "Eighth session"): the GPU suite,
# memcheck on the new GPU tests, busyring 1,024 cells on the streaming and resident GPU
# steps with Arbor's GPU busyring beside, busyring 32,768 cells' host set-up (time and
# peak memory) with the binary before the session (.gpu_deps/prebuilt/arbolito-old, a
# CPU build) and after, and the parareal and Thomas follow-ups if their scripts exist.
# Binaries from bench/gpu_pack.sh; carry .gpu_deps and .arbor-gpu. Log: $OUT/s8.log;
# the sub-studies' files packed into $OUT/coarse.tgz and $OUT/thomas.tgz.
set -u
O=$OUT; L=$O/s8.log
export LD_LIBRARY_PATH=$PWD/.gpu_deps/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ARBOLITO_SOURCE_DIR=$PWD
P=$PWD/.gpu_deps/prebuilt
{ nvidia-smi --query-gpu=name --format=csv,noheader; echo "cores: $(nproc)"; cat $P/STAMP; } > $L
t0=$SECONDS
timeout 150 $P/gpu_tests > $O/tests.log 2>&1; echo "gpu_tests rc $? in $((SECONDS - t0)) s" >> $L
grep -E '^\[  (PASSED|FAILED)|^\[  FAILED|Failure' $O/tests.log | head -30 >> $L
if [ -f bench/parareal_coarse_device.sh ]; then
  echo "== parareal coarse" >> $L; mkdir -p /tmp/co; t0=$SECONDS
  OUT=/tmp/co timeout 100 bash bench/parareal_coarse_device.sh > /tmp/co/run.log 2>&1; echo "rc $? in $((SECONDS - t0)) s" >> $L
  tail -25 /tmp/co/run.log >> $L; tar czf $O/coarse.tgz -C /tmp co
fi
if [ -f bench/thomas_regression_device.sh ]; then
  echo "== thomas regression" >> $L; mkdir -p /tmp/th; t0=$SECONDS
  OUT=/tmp/th timeout 80 bash bench/thomas_regression_device.sh > /tmp/th/run.log 2>&1; echo "rc $? in $((SECONDS - t0)) s" >> $L
  tail -25 /tmp/th/run.log >> $L; tar czf $O/thomas.tgz -C /tmp th
fi
sed -E 's/"num-cells": *[0-9]+/"num-cells": 1024/' examples/busyring.json > /tmp/b1024.json
echo "== busyring 1024 x 200 ms" >> $L
for s in gpu-fine "gpu-fine:step=resident" gpu-cell; do timeout 60 $P/arbolito run /tmp/b1024.json --solver $s --spikes-only --timings json -o /tmp/o.h5 2>/dev/null | tail -1 | python3 -c "import json,sys; d=json.load(sys.stdin); print('$s', {k: d[k] for k in ['run','ns_per_cv_step','n_spikes','setup']})" >> $L; done
OUT=/tmp/arb timeout 60 bash .arbor-gpu/run.sh 1024 > /tmp/arb.log 2>&1; grep -E "^--- " /tmp/arb.log >> $L
echo "== busyring 32768 host set-up, omp x $(nproc) threads, --tfinal 0.1 (old = before the session)" >> $L
sed -E 's/"num-cells": *[0-9]+/"num-cells": 32768/' examples/busyring.json > /tmp/b32768.json
for b in old new; do B=$P/arbolito; [ $b = old ] && B=$P/arbolito-old
  python3 - "$B" "$b" >> $L 2>&1 <<'PY'
import resource, subprocess, sys, time, re
t = time.time()
r = subprocess.run([sys.argv[1], "run", "/tmp/b32768.json", "--tfinal", "0.1", "--spikes-only", "--solver", "omp",
                    "--threads", "16", "-o", "/tmp/s.h5"], capture_output=True, text=True, timeout=70)
wall = time.time() - t
m = re.search(r"set-up ([0-9.]+) s", r.stdout + r.stderr)
print(sys.argv[2], "wall %.2f s" % wall, "set-up", m.group(1) if m else "?", "s, peak %.2f GB" % (resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1e6), "rc", r.returncode)
PY
done
timeout 60 compute-sanitizer --tool memcheck $P/gpu_tests --gtest_filter='PararealGpu.*:ThomasVariants.*' 2>&1 | grep -E 'ERROR SUMMARY|PASSED|FAILED' | head -4 >> $L
echo "== done in $SECONDS s" >> $L
cat $L
