#!/usr/bin/python3
"""Plots the voltage traces and the spike raster of an arbolito output file.

    plot_traces.py OUT.h5 -o traces.png [--cells 0,3] [--max-traces 8] [--population NAME]

One line per report column, labelled "gid g, branch b @ x"; a raster panel below when the
file holds spikes. Needs Debian's python3-h5py and python3-matplotlib (/usr/bin/python3).
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only: no display on the machines this runs on
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import sonata_reader  # noqa: E402


def fail(msg):
    print(f"plot_traces.py: {msg}", file=sys.stderr)
    sys.exit(2)


def columns(r, cells, max_traces):
    """(column, label) pairs of the report, in file order, for the chosen cells (at most
    max_traces), and how many there are in all."""
    out = []
    ptr = r["index_pointers"]
    for i, gid in enumerate(r["node_ids"]):
        if cells is not None and int(gid) not in cells:
            continue
        for c in range(int(ptr[i]), int(ptr[i + 1])):
            label = f"gid {gid}, branch {r['element_ids'][c]}"
            if r["element_pos"] is not None:
                label += f" @ {r['element_pos'][c]:.3g}"
            out.append((c, label))
    return out[:max_traces], len(out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("file", help="SONATA output (.h5)")
    p.add_argument("-o", "--output", required=True, help="image to write (PNG)")
    p.add_argument("--cells", help="comma-separated gids to show (default: all)")
    p.add_argument("--max-traces", type=int, default=8, help="at most this many voltage traces (default 8)")
    p.add_argument("--population", help="population to show when the file holds several")
    args = p.parse_args(argv)

    cells = None
    if args.cells:
        try:
            cells = {int(x) for x in args.cells.split(",") if x.strip()}
        except ValueError:
            fail(f"--cells wants comma-separated gids, got {args.cells!r}")
    if args.max_traces < 1:
        fail("--max-traces must be at least 1")
    if not os.path.isfile(args.file):
        fail(f"{args.file}: no such file")
    try:
        import h5py
        with h5py.File(args.file, "r") as f:
            has_report, has_spikes = "report" in f, "spikes" in f
        if not has_report and not has_spikes:
            fail(f"{args.file}: neither /report nor /spikes: not a SONATA output file")
        r = sonata_reader.read(args.file, args.population)
    except (OSError, KeyError, ValueError) as e:
        fail(f"{args.file}: {e}")

    traces, n_traces = columns(r, cells, args.max_traces) if r["data"] is not None else ([], 0)
    gid, t = r["spikes_gid"], r["spikes_t"]
    if cells is not None:
        keep = np.isin(gid, list(cells))
        gid, t = gid[keep], t[keep]
    panels = [kind for kind, present in (("traces", traces), ("raster", len(t))) if present]
    if not panels:
        fail(f"{args.file}: nothing to plot" + (f" for cells {args.cells}" if cells is not None else ""))

    heights = [3 if k == "traces" else 1.5 for k in panels]
    fig, axes = plt.subplots(len(panels), 1, sharex=True, figsize=(9, 1 + sum(heights)),
                             gridspec_kw=dict(height_ratios=heights), squeeze=False)
    axes = axes[:, 0]
    for ax, kind in zip(axes, panels):
        if kind == "traces":
            for c, label in traces:
                ax.plot(r["time"], r["data"][:, c], lw=1, label=label)
            ax.set_ylabel("V (mV)")
            ax.legend(fontsize="small", loc="best")
        else:
            ax.plot(t, gid, "|", color="k", ms=8)
            ax.set_ylabel("gid")
            ax.set_ylim(float(gid.min()) - 0.5, float(gid.max()) + 0.5)
            cells_spiking = np.unique(gid)
            if len(cells_spiking) <= 10:
                ax.set_yticks(cells_spiking)
            else:
                ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes[-1].set_xlabel("t (ms)")
    axes[0].set_title(os.path.basename(args.file))
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    shown = f"{len(traces)} of {n_traces} traces" + (" (--max-traces for more)" if n_traces > len(traces) else "")
    print(f"wrote {args.output}: {shown}, {len(t)} spikes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
