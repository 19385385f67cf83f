#!/usr/bin/python3
"""Hand-made geometry dumps (docs/geometry-dump.md) for testing run_neuron.py alone.

    make_geometry.py ball-and-stick OUT.json [--tfinal MS] [--dt MS] [--sample-dt MS]
    make_geometry.py network OUT.json        [--tfinal MS] [--dt MS] [--sample-dt MS]
    make_geometry.py selftest {ball-and-stick,network} WORKDIR

ball-and-stick: one cell; soma a cylinder 12.6157 um long and wide along x (area
500 um^2), hh, nseg 1; dendrite 200 um, diam 1, pas, nseg 10, attached at soma(1);
IClamp at soma(0.5), delay 5, dur 1, amp 0.5 nA (one spike near 5.85 ms); probes at
soma(0.5), at the 10 dendrite nodes and at the dendrite tip (x = 1, a zero-area node).

network: two such cells. Cell 0 has the IClamp; its soma detector (-10 mV) connects
to an ExpSyn at cell 1's soma (weight 0.05 uS, delay 5 ms), which makes cell 1 spike.
A generator plays three events into an Exp2Syn on cell 1's dendrite (weight 0.0005 uS,
subthreshold). Cell 1 starts from v_init = -68 mV (cell 0 from -65), exercising the
per-cell initialisation. event_rules = "neuron".

selftest: writes the dump into WORKDIR, runs run_neuron.py on it and checks the
output's layout (shapes, types, mapping, time), the frame count, the first frame
(= v_init), the spikes (the soma spiked, when expected) and the --timings line. For the
network it also checks that the psolve and fadvance runs agree bit for bit and that
cell 1 fires after cell 0's spike + delay. Exit status 0 on success, 1 on failure.

The builders are importable (check_passive.py uses `cable_dump`).
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"

SOMA_L = 12.6157  # length = diameter: area pi*L^2 = 500.0 um^2
HH = {"gnabar": 0.12, "gkbar": 0.036, "gl": 0.0003, "ena": 50.0, "ek": -77.0, "el": -54.3}


def run_settings(tfinal=30.0, dt=0.025, sample_dt=0.1, celsius=6.3, rules="neuron"):
    return {"dt": dt, "tfinal": tfinal, "sample_dt": sample_dt, "celsius": celsius, "event_rules": rules}


def ball_and_stick_cell(gid, v_init=-65.0, stim=True, dend_nseg=10):
    soma = {"parent": -1, "parent_x": 0.0, "nseg": 1, "ra": 35.4, "cm": 1.0,
            "pt3d": [[0.0, 0.0, 0.0, SOMA_L], [SOMA_L, 0.0, 0.0, SOMA_L]],
            "mechanisms": {"hh": dict(HH)}}
    dend = {"parent": 0, "parent_x": 1.0, "nseg": dend_nseg, "ra": 35.4, "cm": 1.0,
            "pt3d": [[SOMA_L, 0.0, 0.0, 1.0], [SOMA_L + 200.0, 0.0, 0.0, 1.0]],
            "mechanisms": {"pas": {"g": 0.001, "e": -65.0}}}
    pps = []
    if stim:
        pps.append({"kind": "iclamp", "section": 0, "x": 0.5, "params": {"delay": 5.0, "dur": 1.0, "amp": 0.5}})
    probes = [{"section": 0, "x": 0.5, "element_id": 0, "element_pos": 0.5}]
    for i in range(dend_nseg):
        x = (i + 0.5) / dend_nseg
        probes.append({"section": 1, "x": x, "element_id": 1, "element_pos": x})
    probes.append({"section": 1, "x": 1.0, "element_id": 1, "element_pos": 1.0})
    return {"gid": gid, "v_init": v_init, "sections": [soma, dend], "point_processes": pps,
            "detectors": [{"section": 0, "x": 0.5, "threshold": -10.0}], "probes": probes}


def ball_and_stick_dump(**run):
    return {"format": "arbolito-geometry-1", "population": "default", "run": run_settings(**run),
            "cells": [ball_and_stick_cell(0)], "connections": [], "generators": []}


def network_dump(**run):
    c0 = ball_and_stick_cell(0)
    c1 = ball_and_stick_cell(1, v_init=-68.0, stim=False)
    c1["point_processes"] = [
        {"kind": "expsyn", "section": 0, "x": 0.5, "synapse": 0, "params": {"tau": 2.0, "e": 0.0}},
        {"kind": "exp2syn", "section": 1, "x": 0.55, "synapse": 1, "params": {"tau1": 0.5, "tau2": 2.0, "e": 0.0}},
    ]
    c1["probes"] = [c1["probes"][0], c1["probes"][6]]  # soma(0.5), dend(0.55)
    return {"format": "arbolito-geometry-1", "population": "net", "run": run_settings(**run),
            "cells": [c0, c1],
            "connections": [{"source": 0, "detector": 0, "target": 1, "synapse": 0, "weight": 0.05, "delay": 5.0}],
            "generators": [{"target": 1, "synapse": 1, "weight": 0.0005, "times": [1.0, 2.52, 20.0]}]}


def cable_dump(length, diam, nseg, ra, cm, g, e, amp, x_stim=0.0, tfinal=200.0, dt=0.025, sample_dt=None,
               probe_xs=None, delay=0.0):
    """A single passive cylinder along x; IClamp of amp nA at x_stim from `delay` on."""
    sample_dt = tfinal / 4 if sample_dt is None else sample_dt
    if probe_xs is None:
        probe_xs = [0.0] + [(i + 0.5) / nseg for i in range(nseg)] + [1.0]
    sec = {"parent": -1, "parent_x": 0.0, "nseg": nseg, "ra": ra, "cm": cm,
           "pt3d": [[0.0, 0.0, 0.0, diam], [length, 0.0, 0.0, diam]], "mechanisms": {"pas": {"g": g, "e": e}}}
    cell = {"gid": 0, "v_init": e, "sections": [sec],
            "point_processes": [{"kind": "iclamp", "section": 0, "x": x_stim,
                                 "params": {"delay": delay, "dur": 1e9, "amp": amp}}],
            "detectors": [],
            "probes": [{"section": 0, "x": x, "element_id": 0, "element_pos": x} for x in probe_xs]}
    return {"format": "arbolito-geometry-1", "population": "cable",
            "run": run_settings(tfinal=tfinal, dt=dt, sample_dt=sample_dt),
            "cells": [cell], "connections": [], "generators": []}


def write(dump, path):
    with open(path, "w") as f:
        json.dump(dump, f, indent=1)
        f.write("\n")


def run_neuron(geometry, out, *extra):
    """Run run_neuron.py; return the --timings JSON."""
    cmd = [PY, os.path.join(HERE, "run_neuron.py"), geometry, out, "--timings", *extra]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("FAIL: %s exited %d\n%s%s" % (" ".join(cmd), r.returncode, r.stdout, r.stderr))
    return json.loads(r.stdout.strip().splitlines()[-1])


class Checker:
    def __init__(self):
        self.failures = 0

    def __call__(self, ok, what):
        print("%s: %s" % ("ok  " if ok else "FAIL", what))
        if not ok:
            self.failures += 1


def check_layout(check, f, dump):
    """The SONATA layout of sonata-output.md, against the dump; returns (data, spikes)."""
    import numpy as np
    import h5py
    pop = dump["population"]
    run = dump["run"]
    n_frames = int(round(run["tfinal"] / run["sample_dt"]))
    probes = [(c["gid"], p) for c in dump["cells"] for p in c["probes"]]
    rep = f["report"][pop]
    data = rep["data"]
    check(data.dtype == np.float32, "data is float32")
    check(data.shape == (n_frames, len(probes)), "data shape %s == (%d, %d)" % (data.shape, n_frames, len(probes)))
    check(data.attrs["units"] == "mV", "data@units = mV")
    m = rep["mapping"]
    gids = []
    for g, _ in probes:
        if not gids or gids[-1] != g:
            gids.append(g)
    check(list(m["node_ids"][:]) == gids and m["node_ids"].dtype == np.uint64, "node_ids %s" % gids)
    ptr = [0]
    for g in gids:
        ptr.append(ptr[-1] + sum(1 for gg, _ in probes if gg == g))
    check(list(m["index_pointers"][:]) == ptr, "index_pointers %s" % ptr)
    check("index_pointer" in m and m["index_pointer"].id == m["index_pointers"].id, "index_pointer is a hard link")
    check(list(m["element_ids"][:]) == [p["element_id"] for _, p in probes] and m["element_ids"].dtype == np.uint32,
          "element_ids")
    check(np.array_equal(m["element_pos"][:], np.array([p["element_pos"] for _, p in probes], dtype=np.float32)),
          "element_pos")
    check(list(m["time"][:]) == [0.0, run["tfinal"], run["sample_dt"]] and m["time"].attrs["units"] == "ms",
          "time = [0, tfinal, sample_dt] ms")
    sp = f["spikes"][pop]
    check(h5py.check_enum_dtype(sp.attrs.get_id("sorting").dtype) is not None and sp.attrs["sorting"] == 2,
          "spikes@sorting = by_time (enum)")
    check(sp["timestamps"].attrs["units"] == "ms" and sp["timestamps"].dtype == np.float64
          and sp["node_ids"].dtype == np.uint64, "spike dataset types and units")
    ts, ids = sp["timestamps"][:], sp["node_ids"][:]
    check(all((ts[i], ids[i]) <= (ts[i + 1], ids[i + 1]) for i in range(len(ts) - 1)), "spikes sorted by (time, gid)")
    v0 = [c["v_init"] for c in dump["cells"] for _ in c["probes"]]
    check(np.allclose(data[0, :], v0, atol=1e-5), "first frame (t = 0) is v_init")
    return np.asarray(data[:], dtype=np.float64), ts, ids


def selftest(kind, workdir):
    import h5py
    import numpy as np
    os.makedirs(workdir, exist_ok=True)
    check = Checker()
    dump = ball_and_stick_dump() if kind == "ball-and-stick" else network_dump()
    geo = os.path.join(workdir, kind + ".json")
    out = os.path.join(workdir, kind + ".h5")
    write(dump, geo)
    if os.path.exists(out):
        os.remove(out)
    timing = run_neuron(geo, out)
    check(os.path.exists(out) and not os.path.exists(out + ".partial"), "OUT.h5 written, no .partial left")
    steps = int(round(dump["run"]["tfinal"] / dump["run"]["dt"]))
    n_nodes = sum(s["nseg"] + 1 + (s["parent"] < 0) for c in dump["cells"] for s in c["sections"])
    check(timing["steps"] == steps and timing["n_nodes"] == n_nodes and timing["run_s"] >= 0,
          "timings %s (steps %d, n_nodes %d)" % (timing, steps, n_nodes))
    with h5py.File(out, "r") as f:
        data, ts, ids = check_layout(check, f, dump)
    soma0 = data[:, 0]
    t = np.arange(data.shape[0]) * dump["run"]["sample_dt"]
    s0 = ts[ids == 0]
    check(len(s0) == 1 and 5.0 < s0[0] < 7.0, "cell 0 spiked once after the stimulus: %s" % list(s0))
    check(soma0.max() > 20.0 and 5.0 < t[soma0.argmax()] < 7.0, "soma trace peaks at %.2f mV" % soma0.max())
    if len(s0):
        # NEURON's fixed step: the spike time is a step end plus 1e-10 ms.
        k = (s0[0] - 1e-10) / dump["run"]["dt"]
        check(abs(k - round(k)) < 1e-6, "spike time %r lies on the step grid (+1e-10)" % s0[0])
    if kind == "ball-and-stick":
        dend = data[:, 1:11]
        check(bool(np.all(np.diff(dend[t.searchsorted(5.5)]) < 0)),
              "during the stimulus the dendrite voltage falls away from the soma")
        check(abs(data[-1, 0] - data[-1, -1]) < 5.0, "tip (x = 1 node) recorded")
    else:
        s1 = ts[ids == 1]
        check(len(s1) >= 1 and len(s0) == 1 and s0[0] + 5.0 < s1[0] < s0[0] + 8.0,
              "cell 1 spiked after cell 0's spike + delay: %s" % list(s1))
        out2 = os.path.join(workdir, kind + "_fadvance.h5")
        out3 = os.path.join(workdir, kind + "_psolve.h5")
        run_neuron(geo, out2, "--float64", "--fadvance")
        run_neuron(geo, out3, "--float64")
        with h5py.File(out2, "r") as a, h5py.File(out3, "r") as b:
            pop = dump["population"]
            same = (np.array_equal(a["report"][pop]["data"][:], b["report"][pop]["data"][:])
                    and np.array_equal(a["spikes"][pop]["timestamps"][:], b["spikes"][pop]["timestamps"][:]))
            check(same, "psolve and fadvance loop agree bit for bit")
            check(a["report"][pop]["data"].dtype == np.float64, "--float64 writes float64")
    print("%s: %d failure(s)" % (kind, check.failures))
    return 1 if check.failures else 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("ball-and-stick", "network"):
        p = sub.add_parser(name)
        p.add_argument("out")
        p.add_argument("--tfinal", type=float, default=30.0)
        p.add_argument("--dt", type=float, default=0.025)
        p.add_argument("--sample-dt", type=float, default=0.1)
    p = sub.add_parser("selftest")
    p.add_argument("kind", choices=["ball-and-stick", "network"])
    p.add_argument("workdir")
    a = ap.parse_args(argv)
    if a.cmd == "selftest":
        return selftest(a.kind, a.workdir)
    build = ball_and_stick_dump if a.cmd == "ball-and-stick" else network_dump
    write(build(tfinal=a.tfinal, dt=a.dt, sample_dt=a.sample_dt), a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
