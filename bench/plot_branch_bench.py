#!/usr/bin/env python3
"""Plot branch_bench's TSV (the seed's multi-morphology study, issue 12): ns per real CV and
solve against cells, one panel per cell set, one line per solver variant, the copy floor
(32 B per CV at the bandwidth the TSV's floor_x implies) dashed.
Usage: plot_branch_bench.py BRANCH_BENCH.tsv -o OUT.png [--variants a,b,...]"""
import argparse
import csv
from collections import defaultdict

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

ap = argparse.ArgumentParser()
ap.add_argument("tsv")
ap.add_argument("-o", "--output", required=True)
ap.add_argument("--variants", default="gpu-cell,gpu-fine,gpu-fine-s24,fold,edd-cut32,edd-c32-t1536")
a = ap.parse_args()
wanted = a.variants.split(",")
data = defaultdict(lambda: defaultdict(list))  # set -> variant -> [(cells, ns)]
floor = {}  # set -> cells -> ns of the copy floor
with open(a.tsv) as f:
    for r in csv.DictReader(f, delimiter="\t"):
        ns, x = float(r["ns_per_cv"]), float(r["floor_x"])
        floor.setdefault(r["set"], {})[int(r["cells"])] = ns / x
        if r["variant"] in wanted:
            data[r["set"]][r["variant"]].append((int(r["cells"]), ns))
order = ["2", "3", "4", "multi", "deep", "real"]
sets = [s for s in order if s in data] + sorted(s for s in data if s not in order)
cols = 3
rows = (len(sets) + cols - 1) // cols
fig, axes = plt.subplots(rows, cols, figsize=(5.5 * cols, 4.2 * rows), squeeze=False)
titles = {"2": "binary trees, 2 levels", "3": "binary trees, 3 levels", "4": "binary trees, 4 levels",
          "multi": "multi-morphology (2-4 levels, random)", "deep": "caterpillar, 64 levels", "real": "real cells"}
for ax, s in zip(axes.flat, sets):
    for v in wanted:
        pts = sorted(data[s].get(v, []))
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=v,
                    lw=2.5 if v in ("gpu-cell", "fold", "edd-cut32", "edd-c32-t1536") else 1.2)
    fl = sorted(floor[s].items())
    ax.plot([p[0] for p in fl], [p[1] for p in fl], "k--", lw=1, label="copy floor (32 B/CV)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("cells (512 CVs each)")
    ax.set_ylabel("ns per CV and solve")
    ax.set_title(titles.get(s, s))
    ax.grid(True, which="both", alpha=0.3)
for ax in axes.flat[len(sets):]:
    ax.axis("off")
axes.flat[0].legend(fontsize=8)
fig.suptitle("gpu-branch (fold, EDD) against gpu-cell and gpu-fine, solve alone, H100")
fig.tight_layout()
fig.savefig(a.output, dpi=100)
print(f"wrote {a.output}")
