#!/usr/bin/env python3
"""A network of Allen Cell Types perisomatic cells, written once for every simulator.

    allen_network.py ARBOLITO OUTDIR [--cells N] [--tfinal MS] [--seed S] [--synapses K]
                     [--rate HZ] [--w-in US] [--in-degree C] [--w-conn US] [--min-delay MS]
                     [--max-delay MS] [--step-amp NA] [--step-delay MS] [--step-dur MS]
                     [--dt MS] [--zero-area fold|keep] [--allen DIR]

ARBOLITO is an arbolito binary built with the Allen channels (-DARBOLITO_MECHANISMS=
../shared/models/allen/mechanisms): its geometry dump (`info --geometry`) states each fit's
sections, CVs and synapse nodes for the other simulators. OUTDIR receives
  cells/<fit>.json, .swc    each fit as allen_to_arbolito.py converts it (read from --allen,
                            default ../shared/models/allen; never copied into the project)
  cells/<fit>.geom.json     its geometry dump
  network.json              the arbolito model
  network.desc.json         the same network for bench/allen_network_arbor.cpp and
                            bench/allen_network_peers.py (format below)
Everything follows from the arguments: the same arguments write the same bytes.

The network:
  * N cells in four blocks, one per fit in the order of FITS (block f has N//4 cells, one more
    for f < N%4): one block is one arbolito cell entry with a "count", so the four
    morphologies are read once each.
  * Every cell has K exp2syn synapses (tau1 0.5 ms, tau2 2 ms, e 0 mV) at CV nodes of its soma
    and dendrites (SWC types 1, 3, 4), drawn per fit uniformly over those nodes (without
    repetition while K <= their count): the cells of a fit share their sites.
  * Synapse k of cell g takes a Poisson train of RATE Hz from 0 to tfinal with weight W_IN
    (rounded to float32, as Arbor stores a generator's weight),
    arbolito's "poisson" generator with seed poisson_seed(S, g, k): std::mt19937_64 seeded
    with it, intervals from std::exponential_distribution<double>(RATE/1000) (libstdc++),
    times start + the running sum while below tfinal. The Arbor program draws the same times
    with the same library calls; Python readers use the bit-exact port in
    bench/allen_network_peers.py.
  * Each cell receives C = min(IN_DEGREE, N - 1) connections from distinct other cells
    (uniform), each onto a uniformly drawn synapse of the target, with weight W_CONN and a
    delay uniform in [MIN_DELAY, MAX_DELAY]; weights and delays are rounded to float32, as
    Arbor stores them, so every simulator gets the same numbers.
  * A spike detector at -15 mV on the soma (the converter's), no probes; with --step-amp, the
    converter's square current step into every soma.
  * arbolito's CVs: the converter's odd_per_length 40 with "zero_area": "fold" (--zero-area,
    default fold): the zero-area nodes at section tips and joints of one child are folded
    away, exactly (no synapse sits on one: the sites are CV centres), so arbolito solves the
    rows Arbor's CVs have. The geometry dump, which the other simulators read, is NEURON's
    layout either way.
The random draws use Python's random.Random (its sequence is fixed across Python versions).

network.desc.json ("format": "allen-network-1"): run {dt, tfinal, celsius, threshold},
synapse {kind, tau1, tau2, e}, poisson {rate_hz, weight, seed, start, stop}, step (null or
{amp, delay, dur}), cells, synapses_per_cell, in_degree, min_delay, max_delay, fits [{name, fit (the fit JSON's path), geometry (the dump, relative to
the description), first_gid, count, synapses [{section, x}]}], connections {source, target,
synapse, weight, delay} (columns, one entry per connection, grouped by target).

Exit status 0; 2 with one line naming the argument or file and the reason.
"""
import argparse
import json
import os
import random
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import allen_to_arbolito  # noqa: E402

# (fit, morphology) as ../shared/models/allen/README.md pairs them.
FITS = [
    ("472363762", "Scnn1a_473845048_m"),
    ("473863510", "Rorb_325404214_m"),
    ("473863035", "Nr5a1_471087815_m"),
    ("472912177", "Pvalb_470522102_m"),
]
SYNAPSE = {"kind": "exp2syn", "tau1": 0.5, "tau2": 2.0, "e": 0.0}
SYNAPSE_TAGS = (1, 3, 4)   # soma, dendrite, apical dendrite
SEED_LIMIT = 1 << 20       # seeds below this keep poisson_seed under arbolito's 2^62


class Bad(Exception):
    pass


def f32(x):
    """x rounded to the nearest float32, as a Python float."""
    return struct.unpack("f", struct.pack("f", x))[0]


def poisson_seed(seed, gid, k, synapses):
    return (seed << 40) + gid * synapses + k


def block_sizes(n):
    return [n // 4 + (1 if f < n % 4 else 0) for f in range(4)]


def convert(args, fit, morph, cells_dir):
    """The fit as an arbolito model, and its geometry dump."""
    fit_path = os.path.join(args.allen, "fits", fit + "_fit.json")
    swc = os.path.join(args.allen, "morphologies", morph + ".swc")
    for p in (fit_path, swc):
        if not os.path.isfile(p):
            raise Bad("%s: no such file (--allen %s)" % (p, args.allen))
    conv = [fit_path, swc, cells_dir, "--name", fit, "--tfinal", repr(args.tfinal), "--dt", repr(args.dt),
            "--amp", repr(args.step_amp if args.step_amp is not None else 0.0),
            "--delay", repr(args.step_delay), "--dur", repr(args.step_dur), "--zero-area", args.zero_area]
    if allen_to_arbolito.main(conv) != 0:
        raise Bad("allen_to_arbolito.py could not convert %s" % fit_path)
    model_path = os.path.join(cells_dir, fit + ".json")
    with open(model_path) as f:
        model = json.load(f)
    geom = os.path.join(cells_dir, fit + ".geom.json")
    r = subprocess.run([args.arbolito, "info", model_path, "--geometry", geom, "--log-level", "warn"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        last = (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]
        raise Bad("%s info %s: %s (an arbolito built with the Allen channels is needed)" % (args.arbolito, model_path, last))
    with open(geom) as f:
        dump = json.load(f)
    return fit_path, model, dump


def synapse_sites(dump, k, rng, where):
    """K (section, x) CV nodes of the soma and dendrites."""
    nodes = [(s, (i + 0.5) / sec["nseg"]) for s, sec in enumerate(dump["cells"][0]["sections"])
             if sec["tag"] in SYNAPSE_TAGS for i in range(sec["nseg"])]
    if not nodes:
        raise Bad("%s: no soma or dendrite sections" % where)
    picks = rng.sample(range(len(nodes)), k) if k <= len(nodes) else [rng.randrange(len(nodes)) for _ in range(k)]
    return [nodes[p] for p in picks]


def network_cell(model, sites, args):
    """The converted cell with the network's synapses (branch = dump section: odd_per_length
    cuts a branch into equal CVs, so the dump writes one section per branch)."""
    cell = dict(model["cells"][0])
    cell["morphology"] = dict(cell["morphology"], swc="cells/" + cell["morphology"]["swc"])
    place = [{"location": {"branch": s, "x": x}, "mechanism": SYNAPSE["kind"],
              "params": {"tau1": SYNAPSE["tau1"], "tau2": SYNAPSE["tau2"], "e": SYNAPSE["e"]}} for s, x in sites]
    if args.step_amp is not None:
        place += [p for p in cell["place"] if p["mechanism"] == "iclamp"]
    cell["place"] = place
    cell.pop("probes", None)
    return cell


def check_args(args):
    for name, lo in (("cells", 1), ("synapses", 1), ("in_degree", 0)):
        if getattr(args, name) < lo:
            raise Bad("--%s must be >= %d" % (name.replace("_", "-"), lo))
    for name in ("tfinal", "dt", "rate", "min_delay"):
        if not getattr(args, name) > 0:
            raise Bad("--%s must be > 0" % name.replace("_", "-"))
    if args.max_delay < args.min_delay:
        raise Bad("--max-delay %g is below --min-delay %g" % (args.max_delay, args.min_delay))
    if args.min_delay < args.dt:
        raise Bad("--min-delay %g is shorter than --dt %g" % (args.min_delay, args.dt))
    if not 0 <= args.seed < SEED_LIMIT:
        raise Bad("--seed must be in [0, %d)" % SEED_LIMIT)
    if args.cells * args.synapses >= 1 << 40:
        raise Bad("--cells x --synapses must stay below 2^40 (the Poisson seeds)")


def build(args):
    check_args(args)
    cells_dir = os.path.join(args.outdir, "cells")
    os.makedirs(cells_dir, exist_ok=True)
    sizes = block_sizes(args.cells)
    model_cells, fits, celsius = [], [], None
    first = 0
    for f, (fit, morph) in enumerate(FITS):
        fit_path, model, dump = convert(args, fit, morph, cells_dir)
        c = model["run"]["celsius"]
        if celsius is not None and c != celsius:
            raise Bad("%s: celsius %g, the other fits %g: one network runs at one temperature" % (fit_path, c, celsius))
        celsius = c
        sites = synapse_sites(dump, args.synapses, random.Random(args.seed * 8 + f), fit_path)
        if sizes[f]:
            cell = network_cell(model, sites, args)
            cell["count"] = sizes[f]
            model_cells.append(cell)
        fits.append({"name": fit, "fit": os.path.abspath(fit_path), "geometry": "cells/%s.geom.json" % fit,
                     "first_gid": first, "count": sizes[f],
                     "synapses": [{"section": s, "x": x} for s, x in sites]})
        first += sizes[f]

    n, k = args.cells, args.synapses
    rng = random.Random(args.seed)
    c_in = min(args.in_degree, n - 1)
    w_conn, w_in = f32(args.w_conn), f32(args.w_in)
    cols = {"source": [], "target": [], "synapse": [], "weight": [], "delay": []}
    connections = []
    for t in range(n):
        for s in rng.sample(range(n - 1), c_in):
            src = s + (s >= t)
            syn = rng.randrange(k)
            d = f32(rng.uniform(args.min_delay, args.max_delay))
            if d < args.min_delay:  # float32 rounding below the bound: the bound itself
                d = f32(args.min_delay)
            for key, v in zip(("source", "target", "synapse", "weight", "delay"), (src, t, syn, w_conn, d)):
                cols[key].append(v)
            connections.append({"source": src, "target": t, "synapse": syn, "weight": w_conn, "delay": d})
    generators = [{"kind": "poisson", "target": g, "synapse": j, "weight": w_in, "rate_hz": args.rate,
                   "start": 0.0, "stop": args.tfinal, "seed": poisson_seed(args.seed, g, j, k)}
                  for g in range(n) for j in range(k)]
    run = {"dt": args.dt, "tfinal": args.tfinal, "celsius": celsius, "event_rules": "arbor"}
    network = {"name": "allen_network", "run": run, "cells": model_cells, "connections": connections,
               "generators": generators}
    desc = {"format": "allen-network-1", "seed": args.seed,
            "run": {"dt": args.dt, "tfinal": args.tfinal, "celsius": celsius, "threshold": allen_to_arbolito.THRESHOLD},
            "synapse": SYNAPSE,
            "poisson": {"rate_hz": args.rate, "weight": w_in, "seed": args.seed, "start": 0.0, "stop": args.tfinal,
                        "seeds": "(seed << 40) + gid * synapses + k"},
            "step": None if args.step_amp is None else {"amp": args.step_amp, "delay": args.step_delay, "dur": args.step_dur},
            "cells": n, "synapses_per_cell": k, "in_degree": c_in,
            "min_delay": f32(args.min_delay), "max_delay": f32(args.max_delay),
            "fits": fits, "connections": cols}
    write_json(os.path.join(args.outdir, "network.json"), network)
    write_json(os.path.join(args.outdir, "network.desc.json"), desc)
    return n, len(connections), len(generators)


def write_json(path, obj):
    with open(path + ".partial", "w") as f:
        json.dump(obj, f, separators=(",", ":"))
        f.write("\n")
    os.replace(path + ".partial", path)


def main(argv):
    ap = argparse.ArgumentParser(description="a network of Allen perisomatic cells for arbolito, Arbor and NEURON")
    ap.add_argument("arbolito", help="arbolito binary with the Allen channels")
    ap.add_argument("outdir")
    ap.add_argument("--cells", type=int, default=10000)
    ap.add_argument("--tfinal", type=float, default=1000.0, help="ms")
    ap.add_argument("--dt", type=float, default=0.025, help="ms")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--synapses", type=int, default=10, help="exp2syn synapses per cell")
    ap.add_argument("--rate", type=float, default=50.0, help="Poisson rate per synapse, Hz")
    ap.add_argument("--w-in", type=float, default=0.002, help="Poisson input weight, uS")
    ap.add_argument("--in-degree", type=int, default=20, help="connections onto each cell")
    ap.add_argument("--w-conn", type=float, default=0.001, help="connection weight, uS")
    ap.add_argument("--min-delay", type=float, default=5.0, help="ms")
    ap.add_argument("--max-delay", type=float, default=10.0, help="ms")
    ap.add_argument("--step-amp", type=float, help="square current step into every soma, nA (default: none)")
    ap.add_argument("--step-delay", type=float, default=100.0, help="ms")
    ap.add_argument("--step-dur", type=float, default=800.0, help="ms")
    ap.add_argument("--zero-area", choices=("fold", "keep"), default="fold",
                    help="arbolito's zero-area nodes: fold them (exact; default) or keep NEURON's layout")
    ap.add_argument("--allen", default=os.path.join(os.path.dirname(ROOT), "shared", "models", "allen"))
    args = ap.parse_args(argv)
    try:
        cells, conns, gens = build(args)
    except Bad as e:
        print("allen_network.py: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        print("allen_network.py: %s" % e, file=sys.stderr)
        return 2
    print("allen_network.py: %d cells, %d connections, %d Poisson generators in %s" % (cells, conns, gens, args.outdir))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
