#!/usr/bin/env bash
# Call 15q: how much shared memory EDD's staged junction rows may take (call 15p: staging
# helps every set but the real cells at 25,600, 0.072 -> 0.089 ns/CV, where blocks of up to
# 96 KiB leave two or three an SM). branch_bench's edd-js0 / js48 / js74 (EDD cut 32,
# rows staged up to 0, 48, 74 KiB a block) beside edd-cut32 (96), every set at 256, 2,560
# and 25,600 cells. Pack: branch_bench stripped, gzipped (with arbolito). Log:
# $OUT/cap15q.log.
set -u
source bench/gpu_call_env.sh cap15q
t0=$SECONDS
timeout 200 $P/branch_bench --cells 256,2560,25600 --reps 7 --variants edd-cut32,edd-js0,edd-js48,edd-js74 \
  --tsv $O/cap.tsv > $O/cap.out 2>&1
echo "branch_bench rc $? in $((SECONDS - t0)) s" >> $L
python3 - $O/cap.tsv >> $L <<'PY'
import csv, sys, collections
t = collections.defaultdict(dict)
for r in csv.DictReader(open(sys.argv[1]), delimiter="\t"):
    t[(r["set"], int(r["cells"]))][r["variant"]] = float(r["ns_per_cv"])
vs = ["edd-cut32", "edd-js0", "edd-js48", "edd-js74"]
print("set cells " + " ".join(vs))
for k in sorted(t):
    print(k[0], k[1], " ".join("%.4f" % t[k].get(v, float("nan")) for v in vs))
PY
echo "== done in $SECONDS s" >> $L
cat $L
