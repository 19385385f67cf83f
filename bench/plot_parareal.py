#!/usr/bin/env python3
"""Parareal study (bench/parareal_study.sh): speed-up over sequential time stepping and
iterations to converge against cell size, one line per (device, solver, slices, coarse).
Usage: plot_parareal.py OUT.png TSV...   (python3 with matplotlib)"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

out, tsvs = sys.argv[1], sys.argv[2:]
series = defaultdict(list)
for path in tsvs:
    with open(path) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            solver = r["solver"].split(":")[0]
            key = f"{r['device'].replace('NVIDIA_', '').replace('_80GB_HBM3', '')} {solver} x{r['threads']}, K={r['slices']}, C={r['coarse']}" + (
                f", G on {r['coarse_solver']}" if r["coarse_solver"] != "-" else "") + (
                f", coarse-cvs={r['coarse_cvs']}" if r.get("coarse_cvs", "1") not in ("1", None) else "")
            series[key].append((int(r["n_cv"]), r["model"], float(r["speedup"]), int(r["iterations"])))

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(14, 8))
colours = plt.cm.tab20.colors
for i, (key, pts) in enumerate(sorted(series.items())):
    for model, marker in (("cable", "o-"), ("l5_cell", "s--")):
        p = sorted(x for x in pts if x[1] == model)
        if not p:
            continue
        label = f"{key} ({model})"
        c = colours[i % len(colours)]
        ax1.plot([x[0] for x in p], [x[2] for x in p], marker, color=c, label=label)
        ax2.plot([x[0] for x in p], [x[3] for x in p], marker, color=c, label=label)
ax1.axhline(1.0, color="grey", lw=0.8)
ax1.axhline(2.5, color="red", lw=0.8, ls=":", label="target 2.5x")
for ax, ylabel in ((ax1, "speed-up over sequential (same solver)"), (ax2, "iterations to tol 1e-6")):
    ax.set_xscale("log")
    ax.set_xlabel("CVs of the cell")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
ax1.set_yscale("log")
handles, labels = ax1.get_legend_handles_labels()
fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=7)
fig.suptitle("Parareal (issue 16): 64 ms at dt 0.025 ms, tol 1e-6; cables (o) and the L5 cell (s)")
fig.tight_layout(rect=(0, 0.25, 1, 1))
fig.savefig(out, dpi=120)
