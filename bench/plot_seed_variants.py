#!/usr/bin/env python3
"""Plots bench/seed_variants_bench's TSV (issue 15) into two PNGs.

Usage: plot_seed_variants.py TSV GRID_PNG VARIANTS_PNG

GRID_PNG: the seed's figure grid, batched Thomas, time per solve against the number of
systems, one panel per size (64/128/256/512 unknowns) and precision, every variant and
cuSPARSE. VARIANTS_PNG: the variable batches (Thomas: random 256-512 padded to 512 with
padding computed or not, against fixed 256 and 512; gpu-cell: padding computed or not,
block-interleaved against block-shared), achieved bandwidth against the copy bandwidth.
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    head = ""
    rows = []
    with open(path) as f:
        lines = f.readlines()
    if lines and lines[0].startswith("#"):
        head = lines[0][1:].strip()
        lines = lines[1:]
    for r in csv.DictReader(lines, delimiter="\t"):
        r["count"] = int(r["count"])
        for k in ("ms", "GBs", "pct_copy", "err"):
            r[k] = float(r[k])
        rows.append(r)
    return head, rows


def grid(rows, head, out):
    g = [r for r in rows if r["section"] == "grid"]
    ns = sorted({int(r["shape"].split("=")[1]) for r in g})
    precs = ["fp64", "fp32"]
    fig, axes = plt.subplots(len(precs), len(ns), figsize=(4 * len(ns), 3.6 * len(precs)), squeeze=False)
    styles = {"thomas_batch interleaved": "o-", "thomas_batch unified-vector": "s-",
              "cusparse gtsvInterleavedBatch": "^--", "cusparse gtsv2StridedBatch": "v:"}
    for i, p in enumerate(precs):
        for j, n in enumerate(ns):
            ax = axes[i][j]
            series = defaultdict(list)
            for r in g:
                if r["precision"] == p and r["shape"] == f"n={n}":
                    series[r["variant"]].append((r["count"], r["ms"]))
            for v, pts in series.items():
                pts.sort()
                ax.plot([x for x, _ in pts], [y for _, y in pts], styles.get(v, "x-"), label=v, ms=4)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(f"{n} unknowns, {p}")
            ax.set_xlabel("systems")
            if j == 0:
                ax.set_ylabel("ms per solve")
            ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Batched tridiagonal solves (issue 15): " + head, fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def variants(rows, head, out):
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.2))
    # Thomas variable batches: % of copy bandwidth against systems.
    ax = axes[0]
    series = defaultdict(list)
    for r in rows:
        if r["section"] == "vbatch":
            series[(r["variant"], r["precision"])].append((r["count"], r["pct_copy"]))
    cases = sorted({v for v, _ in series})
    colour = {v: f"C{i}" for i, v in enumerate(cases)}
    for (v, p), pts in sorted(series.items()):
        pts.sort()
        ax.plot([x for x, _ in pts], [y for _, y in pts], ("o-" if p == "fp64" else "s--"), ms=4, color=colour[v],
                label=f"{v.replace('thomas ', '')} {p}")
    ax.set_xscale("log")
    ax.set_xlabel("systems")
    ax.set_ylabel("% of copy bandwidth (real unknowns)")
    ax.set_title("cuThomasVBatch: fixed vs random 256-512")
    ax.legend(fontsize=6)
    ax.grid(True, alpha=0.3)
    # gpu-cell: time per variant, largest batch, each kind.
    cells = [r for r in rows if r["section"] == "cells"]
    for k, p in enumerate(["fp64", "fp32"]):
        ax = axes[1 + k]
        sel = [r for r in cells if r["precision"] == p]
        if not sel:
            continue
        top = max(r["count"] for r in sel)
        sel = [r for r in sel if r["count"] == top]
        kinds = sorted({r["shape"] for r in sel}, key=["mono", "multi", "multi600-700"].index)
        vs = sorted({r["variant"] for r in sel})
        width = 0.8 / max(1, len(vs))
        for j, v in enumerate(vs):
            ys = [next((r["pct_copy"] for r in sel if r["shape"] == kd and r["variant"] == v), 0) for kd in kinds]
            ax.bar([i + j * width for i in range(len(kinds))], ys, width, label=v)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(kinds))])
        ax.set_xticklabels(kinds)
        ax.set_ylabel("% of copy bandwidth (real CVs)")
        ax.set_title(f"gpu-cell rowparent8, {top:,} cells, {p}")
        ax.set_ylim(0, 1.45 * max(r["pct_copy"] for r in sel))
        ax.legend(fontsize=6, ncol=2, loc="upper right")
        ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle("Seed's variants (issue 15): " + head, fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main():
    head, rows = read(sys.argv[1])
    grid(rows, head, sys.argv[2])
    variants(rows, head, sys.argv[3])


if __name__ == "__main__":
    main()
