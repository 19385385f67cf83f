#!/usr/bin/env python3
"""The memory estimate against the peak resident memory of real runs.

For each model shape (busyring networks, single cells of many branches and CVs, explicit
connection lists, many generators) this writes the model, asks `arbolito info` for the
estimate `run` checks ("a run needs about ..."), runs it (`--spikes-only`, 1 ms: the
peak is the set-up's) and reads the run's peak resident memory
(`--timings json`: peak_memory). It prints a Markdown table of both and their ratio, and with
--check exits 1 unless every estimate lies between the peak and 25 % above it.

    tools/memory_table.py ARBOLITO [--scale small|full] [--check] [--only NAME ...]

`small` (a few hundred MB a run, about a minute on 2 cores) is what ctest runs
(memory_estimate_table); `full` (up to about 3 GB a run) made the table in
docs/memory.md.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile

UNITS = {"bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}


def binary_tree_swc(path, depth, points_per_branch, seg_um=10.0):
    """A soma and a binary tree of 2^depth - 1 dendrite branches, each of
    points_per_branch segments along a direction that turns at each fork."""
    lines = ["1 1 0 0 0 8 -1"]
    next_id = 2
    stack = [(1, 0.0, 8.0, 0.0, 0, 1.0)]  # parent id, x, y, z, level, radius
    while stack:
        parent, x, y, z, level, r = stack.pop()
        if level == depth:
            continue
        dx, dy = (1.0, 0.3 * (level % 3 - 1))
        px, py = x, y
        pid = parent
        for _ in range(points_per_branch):
            px += seg_um * dx
            py += seg_um * dy
            lines.append(f"{next_id} 3 {px:.3f} {py:.3f} {z + level:.3f} {r:.3f} {pid}")
            pid = next_id
            next_id += 1
        for turn in (-1.0, 1.0):
            stack.append((pid, px, py + turn, z, level + 1, max(0.2, r * 0.8)))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def single_cell(dirname, name, depth, points, n):
    swc = os.path.join(dirname, name + ".swc")
    binary_tree_swc(swc, depth, points)
    return {"name": name, "run": {"dt": 0.025, "tfinal": 1},
            "cells": [{"morphology": {"swc": swc}, "discretization": {"policy": "nseg", "n": n},
                       "paint": [{"region": "soma", "mechanism": "hh"}, {"region": "dend", "mechanism": "pas"}],
                       "place": [{"location": "soma", "mechanism": "iclamp", "params": {"delay": 0, "dur": 1, "amp": 0.1}}],
                       "detectors": [{"location": "soma", "threshold": -10}],
                       "probes": [{"location": "soma"}]}]}


def ball_and_stick_cells(count, synapses=1):
    return [{"count": count, "morphology": {"builder": "ball_and_stick"}, "discretization": {"policy": "nseg", "n": 4},
             "paint": [{"region": "soma", "mechanism": "hh"}, {"region": "dend", "mechanism": "pas"}],
             "place": [{"location": {"branch": 1, "x": 0.5}, "mechanism": "expsyn"}] * synapses,
             "detectors": [{"location": "soma", "threshold": -10}]}]


def connections(name, cells, n):
    rng = random.Random(1)
    conns = [{"source": rng.randrange(cells), "target": rng.randrange(cells), "weight": 0.01, "delay": 1 + rng.random()}
             for _ in range(n)]
    return {"name": name, "run": {"dt": 0.025, "tfinal": 1}, "cells": ball_and_stick_cells(cells), "connections": conns}


def generators(name, cells, per_cell, events, explicit):
    gens = []
    for c in range(cells):
        for k in range(per_cell):
            if explicit:
                gens.append({"target": c, "weight": 0.01, "kind": "explicit",
                             "times": [0.5 + 0.01 * (j + k) for j in range(events)]})
            else:
                gens.append({"target": c, "weight": 0.01, "kind": "regular", "start": 0.5, "stop": 0.5 + events * 1e-3,
                             "interval": 1e-3})
    return {"name": name, "run": {"dt": 0.025, "tfinal": 1}, "cells": ball_and_stick_cells(cells), "generators": gens}


def busyring(cells, synapses):
    return {"sets": [f"network.num-cells={cells}", f"network.synapses={synapses}"]}


def shapes(scale):
    """name, the model (a function writing it into a folder, or busyring's --set list),
    what it is. small: about 100 to 300 MB a run; full: about 1 to 3 GB."""
    full = scale == "full"
    yield "busyring", busyring(4096 if full else 1024, 10), "busyring cells of ~1,700 CVs, 10 synapses each"
    yield "busyring_synapses", busyring(1024 if full else 256, 1000), "busyring, 1,000 synapses a cell"
    yield "one_cell_branches", lambda d: single_cell(d, "one_cell_branches", 15 if full else 12, 5, 200), \
        "one cell, a binary tree of many short branches, 200 CVs each"
    yield "one_cell_cvs", lambda d: single_cell(d, "one_cell_cvs", 6 if full else 4, 5, 100000 if full else 40000), \
        "one cell, few branches of very many CVs"
    yield "connections", lambda d: connections("connections", 20000 if full else 4000, 2000000 if full else 400000), \
        "ball-and-stick cells and a list of connections"
    yield "generators_regular", lambda d: generators("generators_regular", 5000 if full else 1000, 10, 500, False), \
        "regular generators, the events made by the reader"
    yield "generators_explicit", lambda d: generators("generators_explicit", 5000 if full else 1000, 10, 200, True), \
        "explicit event lists in the model file"


def parse_bytes(text):
    m = re.search(r"a run needs about ([0-9.]+) (\w+)", text)
    if not m:
        raise RuntimeError("no estimate in: " + text)
    return float(m.group(1)) * UNITS[m.group(2)]


def run_peak(cmd, env):
    """The run's peak resident memory (bytes, `--timings json`'s peak_memory: the process's
    own VmHWM; getrusage would count this script's memory, from which it was forked),
    exit status and stderr."""
    r = subprocess.run(cmd + ["--timings", "json"], capture_output=True, text=True, env=env)
    peak = 0
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            peak = json.loads(line).get("peak_memory", 0)
    return peak, r.returncode, r.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("arbolito")
    ap.add_argument("--scale", choices=["small", "full"], default="small")
    ap.add_argument("--check", action="store_true", help="exit 1 unless peak <= estimate <= 1.25 peak everywhere")
    ap.add_argument("--only", nargs="*", default=None)
    a = ap.parse_args()
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    env.pop("ARBOLITO_MAX_MEMORY", None)
    bad = []
    print("| shape | what | model file | estimate | peak RSS | estimate / peak |")
    print("| --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as d:
        for name, model, what in shapes(a.scale):
            if a.only and name not in a.only:
                continue
            extra = []
            if isinstance(model, dict) and "sets" in model:
                path = os.path.join(src, "examples", "busyring.json")
                for s in model["sets"] + ["network.duration=1"]:
                    extra += ["--set", s]
            else:
                path = os.path.join(d, name + ".json")
                with open(path, "w") as f:
                    json.dump(model(d), f)
            size = os.path.getsize(path)
            info = subprocess.run([a.arbolito, "info", path] + extra, capture_output=True, text=True, env=env)
            if info.returncode != 0:
                print(f"| {name} | info failed: {info.stderr.strip()} |")
                bad.append(name)
                continue
            estimate = parse_bytes(info.stdout)
            # The models run for 1 ms: the peak is the set-up's, with every event queued.
            peak, rc, err = run_peak([a.arbolito, "run", path, *extra, "--spikes-only", "-o", os.path.join(d, name + ".h5")],
                                     env)
            if rc != 0:
                print(f"| {name} | run failed (exit {rc}): {err.strip().splitlines()[-1] if err.strip() else ''} |")
                bad.append(name)
                continue
            ratio = estimate / peak
            ok = 1.0 <= ratio <= 1.25
            if not ok:
                bad.append(name)
            cells = re.search(r": (\d+) cells, (\d+) connections, (\d+) generators", info.stdout)
            cvs = re.search(r"total CVs: (\d+)", info.stdout)
            desc = f"{what}: {cells.group(1)} cells, {int(cvs.group(1)):,} CVs, {int(cells.group(2)):,} connections, " \
                   f"{int(cells.group(3)):,} generators"
            print(f"| {name} | {desc} | {size / 2**20:.1f} MiB | {estimate / 2**20:.0f} MiB | {peak / 2**20:.0f} MiB | "
                  f"{ratio:.3f}{'' if ok else ' (outside 1 to 1.25)'} |", flush=True)
    if a.check and bad:
        print("outside [peak, 1.25 peak]: " + ", ".join(bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
