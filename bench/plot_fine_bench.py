#!/usr/bin/env python3
"""Plot fine_bench's TSV (Huber's study): ns per CV and solve against cells, one line per
variant, one panel per cell set. Usage: plot_fine_bench.py FINE_BENCH.tsv -o OUT.png"""
import argparse
import csv
from collections import defaultdict

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

ap = argparse.ArgumentParser()
ap.add_argument("tsv")
ap.add_argument("-o", "--output", required=True)
a = ap.parse_args()
data = defaultdict(lambda: defaultdict(list))  # set -> variant -> [(cells, ns)]
with open(a.tsv) as f:
    for r in csv.DictReader(f, delimiter="\t"):
        data[r["set"]][r["variant"]].append((int(r["cells"]), float(r["ns_per_cv"])))
sets = sorted(data)
fig, axes = plt.subplots(1, len(sets), figsize=(6 * len(sets), 4.5), squeeze=False)
for ax, s in zip(axes[0], sets):
    for v, pts in data[s].items():
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", lw=2.5 if v in ("fine", "gpu-cell") else 1,
                label=v)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("busyring cells")
    ax.set_ylabel("ns per CV and solve")
    ax.set_title(f"solve alone, branch probabilities {s}")
    ax.grid(True, which="both", alpha=0.3)
axes[0][0].legend(fontsize=8)
fig.tight_layout()
fig.savefig(a.output, dpi=110)
print(f"wrote {a.output}")
