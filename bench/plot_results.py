#!/usr/bin/env python3
"""The figures of bench/RESULTS.md and docs/, from the benchmarks' TSVs (python3 with matplotlib).

    plot_results.py branch TSV -o OUT.png [--variants a,b,...]   branch_bench's study (bench/branch_bench_h100.tsv):
        ns per real CV and solve against cells, a panel per cell set, a line per variant, the copy floor dashed
    plot_results.py fine TSV -o OUT.png        fine_bench (Huber's study, bench/fine_bench_h100.tsv): ns per CV
        and solve against cells, a line per variant, a panel per cell set
    plot_results.py parareal TSV -o OUT.png [--devices REGEX]   bench/parareal_study.sh's rows
        (bench/parareal_results.tsv): speed-up and iterations against cell size, a line per device, solver,
        slices and coarse step; --devices keeps the rows whose device column matches
    plot_results.py seed-variants TSV GRID.png VBATCH.png   seed_variants_bench (bench/seed_variants_h100.tsv):
        the batched Thomas grid, and the variable batches with gpu-cell's block-shared solve
"""
import argparse
import csv
import re
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def branch(a):
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


def fine(a):
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


def parareal(a):
    keep = re.compile(a.devices) if a.devices else None
    series = defaultdict(list)
    with open(a.tsv) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            if keep and not keep.search(r["device"]):
                continue
            solver = r["solver"].split(":")[0]
            device = r["device"].replace("NVIDIA_", "").replace("_80GB_HBM3", "")
            key = f"{device} {solver} x{r['threads']}, K={r['slices']}, C={r['coarse']}"
            if r["coarse_solver"] != "-":
                key += f", G on {r['coarse_solver']}"
            if r.get("coarse_cvs", "1") not in ("1", None):
                key += f", coarse-cvs={r['coarse_cvs']}"
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
    fig.suptitle("Parareal: 64 ms at dt 0.025 ms, tol 1e-6; cables (o) and the L5 cell (s)")
    fig.tight_layout(rect=(0, 0.25, 1, 1))
    fig.savefig(a.output, dpi=120)
    print(f"wrote {a.output}")


def read_seed_variants(path):
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


def seed_grid(rows, head, out):
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
    fig.suptitle("Batched tridiagonal solves: " + head, fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def seed_vbatch(rows, head, out):
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
    fig.suptitle("Seed's variants: " + head, fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def seed_variants(a):
    head, rows = read_seed_variants(a.tsv)
    seed_grid(rows, head, a.grid)
    seed_vbatch(rows, head, a.vbatch)
    print(f"wrote {a.grid}, {a.vbatch}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="figure", required=True)
    one_png = {}  # figure -> its parser: TSV -o OUT.png
    for name, func in (("branch", branch), ("fine", fine), ("parareal", parareal)):
        p = one_png[name] = sub.add_parser(name)
        p.add_argument("tsv")
        p.add_argument("-o", "--output", required=True)
        p.set_defaults(func=func)
    one_png["branch"].add_argument("--variants", default="gpu-cell,gpu-fine,gpu-fine-s24,fold,edd-cut32,edd-c32-t1536")
    one_png["parareal"].add_argument("--devices", default="")
    p = sub.add_parser("seed-variants")
    p.add_argument("tsv")
    p.add_argument("grid")
    p.add_argument("vbatch")
    p.set_defaults(func=seed_variants)
    a = ap.parse_args()
    a.func(a)


if __name__ == "__main__":
    main()
