#!/usr/bin/python3
"""Convergence of arbolito's max_extent policy to NEURON as CVs shrink.

The reference is NEURON at nseg = 401 per section (an odd count keeps a node at the soma
centre) on ball-and-stick (hh soma, passive dendrite, a dendritic current pulse).
arbolito runs max_extent = 100 … 3.125 µm (a subthreshold pulse, so that no spike-time shift hides the discretisation error); the largest |ΔV| at the soma and at the
dendrite's end must fall about 4× per halving (second order) and the finest must be within 0.02 mV.
The stimulus sits at the dendrite's end, a node in every discretisation, so that no
O(h) shift of the injection point blurs the order. Prints the table recorded in bench/RESULTS.md.
"""
import json, os, subprocess, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
try:
    import neuron  # noqa: F401
except ImportError:
    print("SKIP: NEURON (python3-neuron) not installed")
    sys.exit(77)
import sonata_reader  # noqa: E402

binary = sys.argv[1]
model = {
    "name": "convergence",
    "run": {"dt": 0.025, "tfinal": 40, "sample_dt": 0.1, "event_rules": "neuron"},
    "cells": [{
        "morphology": {"builder": "ball_and_stick", "dend_length": 400, "dend_radius": 0.5},
        "discretization": {"policy": "nseg", "n": 401},
        "paint": [{"region": "soma", "mechanism": "hh"}, {"region": "dend", "mechanism": "pas", "params": {"g": 1e-4, "e": -65}}],
        "place": [{"location": {"branch": 1, "x": 1.0}, "mechanism": "iclamp", "params": {"delay": 5, "dur": 20, "amp": 0.1}}],
        "probes": [{"location": "soma"}, {"location": {"branch": 1, "x": 1.0}}],
    }],
}
with tempfile.TemporaryDirectory() as tmp:
    def path(n):
        return os.path.join(tmp, n)
    with open(path("ref.json"), "w") as f:
        json.dump(model, f)
    subprocess.run([binary, "info", path("ref.json"), "--geometry", path("geom.json"), "--log-level", "warn"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["/usr/bin/python3", os.path.join(here, "..", "neuron", "run_neuron.py"), path("geom.json"), path("nrn.h5")], check=True, stdout=subprocess.DEVNULL)
    ref = sonata_reader.read(path("nrn.h5"))
    rows, errs = [], []
    for extent in (100, 50, 25, 12.5, 6.25, 3.125):
        model["cells"][0]["discretization"] = {"policy": "max_extent", "extent": extent}
        with open(path("m.json"), "w") as f:
            json.dump(model, f)
        subprocess.run([binary, "run", path("m.json"), "-o", path("arb.h5"), "--log-level", "warn"], check=True)
        arb = sonata_reader.read(path("arb.h5"))
        err = abs(arb["data"] - ref["data"]).max(axis=0)
        rows.append((extent, err[0], err[1]))
        errs.append(max(err))
    print("max_extent_um  max|dV|_soma_mV  max|dV|_dend_end_mV   (reference: NEURON nseg=401)")
    for r in rows:
        print(f"{r[0]:12g}  {r[1]:14.5f}  {r[2]:18.5f}")
    # Centred differences converge in h²: each halving should cut the error about 4×;
    # 3× leaves room for the soma's CV count changing parity between extents.
    ratios = [a / b for a, b in zip(errs, errs[1:])]
    print("error ratio per halving:", " ".join(f"{r:.2f}" for r in ratios))
    ok = all(r > 3.0 for r in ratios) and errs[-1] < 0.02
    print("converging:", ok)
    sys.exit(0 if ok else 1)
