"""A 100-point sweep of the ring's synaptic weight, with a summary figure.

Each run is the ring (examples/ring.json) with network.weight set, as `arbolito run
--set network.weight=W` runs it. Runs go to a pool of threads: the engine releases the
GIL while it integrates, so they run side by side.

    python3 examples/python/weight_sweep.py [-o out/weight_sweep.png] [--points 100] [--workers N]
"""
import argparse
import concurrent.futures
import os
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import arbolito

HERE = pathlib.Path(__file__).resolve().parent


def one_run(base, weight):
    r = arbolito.run(base.with_set("network.weight", weight), "cpu", spikes_only=True, progress=None)
    # Whether the wave reached the last cell, and when it first did.
    last = r.spikes.of(7)
    return len(r.spikes), (last[0] if len(last) else np.nan)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-o", "--output", default="out/weight_sweep.png")
    p.add_argument("--points", type=int, default=100)
    p.add_argument("--workers", type=int, default=os.cpu_count())
    a = p.parse_args()
    base = arbolito.Model.from_file(HERE.parent / "ring.json")
    weights = np.linspace(0.0, 0.1, a.points)  # µS
    with concurrent.futures.ThreadPoolExecutor(a.workers) as pool:
        results = list(pool.map(lambda w: one_run(base, float(w)), weights))
    counts = np.array([n for n, _ in results])
    latency = np.array([t for _, t in results])
    threshold = weights[np.argmax(counts > counts[0])] if (counts > counts[0]).any() else np.nan
    print(f"{len(weights)} runs; the wave goes round from a weight of about {threshold:.4g} µS")

    fig, (ax_n, ax_t) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    ax_n.plot(weights, counts, ".-")
    ax_n.set_ylabel("spikes in 100 ms")
    ax_t.plot(weights, latency, ".-")
    ax_t.set_ylabel("first spike of cell 7 (ms)")
    ax_t.set_xlabel("synaptic weight (µS)")
    ax_n.set_title(f"ring: {len(weights)}-point sweep of network.weight")
    out = pathlib.Path(a.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120, bbox_inches="tight")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
