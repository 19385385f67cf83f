#!/usr/bin/env bash
# Call 15g: where gpu-branch's EDD and fold spend a solve at 25,600 cells (issue 12's
# missed targets): Nsight Compute's duration and DRAM bytes of every kernel of one solve,
# branch_bench's deep (64-level caterpillar) and multi batches. Pack: branch_bench
# stripped, gzipped (with arbolito). Log: $OUT/ncu15g.log, raw CSV $OUT/ncu_*.csv.
set -u
source bench/gpu_call_env.sh ncu15g
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
for set in deep multi; do
  for v in edd fold; do
    # branch_bench solves each variant once before its timed repetitions: the first solve's kernels.
    n=4; [ $v = fold ] && n=$([ $set = deep ] && echo 191 || echo 11)
    timeout 150 ncu --csv --metrics $M -k regex:'edd_|branch_' --launch-count $n \
      $P/branch_bench --cells 25600 --sets $set --variants $v --reps 1 > $O/ncu_${set}_$v.csv 2>/dev/null
    echo "ncu $set $v rc $?" >> $L
    python3 - $O/ncu_${set}_$v.csv >> $L <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; rows = rows[1:]
ki, mi, vi, ii, ui = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value"), h.index("ID"), h.index("Metric Unit")
scale = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3, "second": 1e6, "byte": 1e-6, "Kbyte": 1e-3, "Mbyte": 1.0,
         "Gbyte": 1e3, "KB": 1e-3, "MB": 1.0, "GB": 1e3, "B": 1e-6, "%": 1.0}
per = collections.defaultdict(dict)
for r in rows:
    per[(int(r[ii]), r[ki].split("(")[0])][r[mi]] = float(r[vi].replace(",", "")) * scale.get(r[ui], 1.0)
agg = collections.defaultdict(lambda: [0, 0.0, 0.0, 0.0])
for (i, k), m in per.items():
    a = agg[k]; a[0] += 1; a[1] += m.get("gpu__time_duration.sum", 0)
    a[2] += m.get("dram__bytes_read.sum", 0); a[3] += m.get("dram__bytes_write.sum", 0)
for k, a in sorted(agg.items(), key=lambda x: -x[1][1]):
    print("  %-18s launches %4d  %9.1f us  DRAM read %8.1f MB write %8.1f MB  (%.0f GB/s)" % (k, a[0], a[1], a[2], a[3], (a[2] + a[3]) / max(a[1], 1e-9) * 1e3))
print("  total %.1f us" % sum(a[1] for a in agg.values()))
PY
  done
done
echo "== done in $SECONDS s" >> $L
cat $L
