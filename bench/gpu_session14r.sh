#!/usr/bin/env bash
# Call 14r: where the resident run's time beyond its kernel goes (call 14m: 0.169 s of
# 15.880 at 32,768 cells, 2.1 ms an epoch). Nsight Systems, if the machine has it, on
# busyring 32,768 cells × 20 ms (8 epochs) with the resident step: the GPU's kernels and
# copies and the CUDA API calls, summarised. Log: $OUT/nsys.log.
set -u
source bench/gpu_call_env.sh nsys
command -v nsys >> $L 2>&1 || { echo "no nsys on this machine" >> $L; ls /usr/local/cuda/bin | head -40 >> $L; cat $L; exit 0; }
nsys --version >> $L 2>&1
sed -E "s/\"num-cells\": *[0-9]+/\"num-cells\": 32768/" examples/busyring.json > /tmp/b32.json
timeout 300 nsys profile -o /tmp/rep --force-overwrite true --trace cuda,osrt --sample none \
  $P/arbolito run /tmp/b32.json --tfinal 20 --solver gpu-fine:step=resident --spikes-only --timings json -o /tmp/o.h5 > $O/run.txt 2>&1
echo "nsys rc $? at $SECONDS s" >> $L
tail -1 $O/run.txt >> $L
for r in cuda_gpu_kern_sum cuda_gpu_mem_time_sum cuda_api_sum; do
  timeout 120 nsys stats --report $r --format csv /tmp/rep.nsys-rep 2>/dev/null | head -16 >> $L
done
timeout 120 nsys stats --report cuda_gpu_trace --format csv /tmp/rep.nsys-rep 2>/dev/null > $O/trace.csv
head -3 $O/trace.csv >> $L; wc -l $O/trace.csv >> $L
echo "== done in $SECONDS s" >> $L
cat $L
