"""The 8-cell ring from Python: run it, then plot every soma's voltage and the spikes.

    python3 examples/python/ring.py [-o out/ring_python.png] [--solver auto]
"""
import argparse
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import arbolito

HERE = pathlib.Path(__file__).resolve().parent


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-o", "--output", default="out/ring_python.png")
    p.add_argument("--solver", default="auto")
    a = p.parse_args()
    model = arbolito.Model.from_file(HERE.parent / "ring.json")
    r = arbolito.run(model, a.solver)
    print(r)
    print(f"{len(r.spikes)} spikes; first at {r.spikes.times[:4]} ms on cells {r.spikes.gids[:4]}")

    fig, (ax_v, ax_s) = plt.subplots(2, 1, figsize=(8, 6), sharex=True, height_ratios=[3, 1])
    # The soma probes: branch 0 of each cell.
    for k, name in enumerate(r.traces.columns):
        gid, branch, _ = name.split(":")
        if branch == "0":
            ax_v.plot(r.traces.time, r.traces.data[:, k], lw=0.8, label=f"cell {gid}")
    ax_v.set_ylabel("soma voltage (mV)")
    ax_v.legend(ncol=4, fontsize=7)
    ax_s.plot(r.spikes.times, r.spikes.gids, "|", ms=8)
    ax_s.set_xlabel("time (ms)")
    ax_s.set_ylabel("cell")
    ax_v.set_title(f"examples/ring.json, solver {r.solver}")
    out = pathlib.Path(a.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120, bbox_inches="tight")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
