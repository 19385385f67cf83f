#!/usr/bin/env python3
"""arbolito's busyring in Arbor 0.12.2 (the PyPI wheel, CPU): the peer for run times per CV-step,
and for spikes and voltages (tests/validation/network_vs_arbor.py).

    python3 bench/arbor_busyring.py MODEL.json [--cells N] [--tfinal MS] [--threads T] [--reps R]
                                    [--arbolito PATH] [--spikes OUT.txt] [--traces OUT.json]
                                    [--arbor-extra-synapses]

Interpreter: one that imports arbor 0.12.2 and needs neither h5py nor NEURON: build/arbor-peer's
(the virtual environment tools/test.sh makes), or the pyenv `python3` (3.11.7; `python3 -m pip
install arbor==0.12.2`, which pulls numpy 2 into pyenv's own site-packages). Not /usr/bin/python3
itself: its Debian numpy/h5py/python3-neuron stay as they are.

Arbor gets the network only through arbolito's own interpretation of the model, as NEURON does in
tests/validation/network_vs_neuron.py: `arbolito info MODEL --geometry DUMP` (docs/geometry-dump.md)
writes every cell's sections (pt3d points, nseg, cm, Ra, mechanisms with all parameters), point
processes, detectors, connections (weights, float32 delays) and generator times. From the dump:
  * morphology: one arbor.segment_tree segment per pair of consecutive pt3d points (radius = diam/2),
    a section's first segment hanging off its parent section's last one (busyring: parent_x = 1);
    so the first dendrite starts with the soma's radius, as Arbor's ring.cpp appends it;
  * discretisation: cv_policy_every_segment (ring.cpp's), i.e. one CV per segment, as arbolito's
    (every section must have nseg = segments, or one segment, which is cut into nseg equal
    ones; checked). Arbor adds a zero-extent CV at every fork;
    arbolito (NEURON's nodes) has zero-area nodes at every section end and the root. Both are
    reported ("cvs" is Arbor's and is what ns_per_cv_step uses; "cvs_arbolito" the dump's);
  * mechanisms: painted per tag, one tag per distinct (mechanisms, cm, Ra) of a section, with every
    parameter from the dump (hh's ena/ek become the na/k reversal potentials; pas' e, a global in
    Arbor's catalogue, goes into the mechanism name); cm, Ra, v_init per cell, temperature from the
    dump's celsius (busyring: 6.3 °C, cm 1 µF/cm², Ra 100 Ω·cm, hh soma, pas dendrites);
  * current clamps (the dump's iclamp: delay, dur, amp) as Arbor's i_clamp at their (section, x);
    probes as membrane-voltage probes "p<k>" there (--traces samples them every run.sample_dt);
  * detectors "d<k>" (threshold from the dump) and synapses "s<k>" at the dump's (section, x), mapped
    onto segment ends ((proximal|distal (segment i))) or interior points (on-components);
    busyring: detector at the soma's proximal end (0,0), expsyn at its distal end (0,1), as ring.cpp;
  * detectors that no connection names (Arbor 0.12 records no spike of those) a weightless
    connection each onto an extra expsyn "sink" of their own cell, at the network's longest
    delay (Arbor's epochs, half the shortest, stay as they were);
  * connections and generators exactly as dumped (ring predecessor weight event-weight delay
    min-delay, synapses-1 weightless random ones; one event at 1 ms on each ring's first cell).
Arbor has its own event rules: compare spikes with `arbolito run --event-rules arbor`.

Arbor's own busyring (ring.cpp branch_cell) also places `synapses` unconnected expsyn at random
locations ("s", ls::uniform). So does arbolito (network.unconnected-synapses, default `synapses`):
they are in the dump like any synapse, and Arbor gets them at arbolito's sites (the same
distribution as ls::uniform's, other draws), coalescing identical ones on a CV as its busyring
does. --arbor-extra-synapses is for a model with unconnected-synapses 0: it places Arbor's own
ls::uniform draw of `synapses` instead (the mechanisms' cost is then Arbor's benchmark's, spikes
the same).

Prints one JSON line: simulator, cells, cvs, cvs_arbolito, steps, setup_s (recipe, decomposition and
simulation construction; the arbolito dump is dump_s), run_s (sim.run() per repetition; reset in
between), run_s_min, ns_per_cv_step (run_s_min / (cvs * steps)), spikes, threads.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import arbor as A

U = A.units
here = os.path.dirname(os.path.abspath(__file__))


def mech_signature(sec):
    return json.dumps([sec["mechanisms"], sec["cm"], sec["ra"]], sort_keys=True)


def density(name, params):
    """arbor.density with every dumped parameter; catalogue globals go into the name."""
    info = A.default_catalogue()[name]
    glob = {k: v for k, v in params.items() if k in info.globals}
    rng = {k: v for k, v in params.items() if k in info.parameters}
    unknown = set(params) - set(glob) - set(rng)
    if unknown:
        raise ValueError("mechanism %s: no parameters %s in Arbor's catalogue" % (name, sorted(unknown)))
    if glob:
        name += "/" + ",".join("%s=%r" % kv for kv in sorted(glob.items()))
    return A.density(name, rng)


class Cell:
    """One dumped cell as an arbor.cable_cell, plus its CV counts."""

    def __init__(self, c, celsius, extra_synapses=0, unconnected_detectors=()):
        secs = c["sections"]
        tree = A.segment_tree()
        tags = {}
        last_seg = []   # last segment id of each section
        first_seg = []  # first segment id of each section
        arc = []        # cumulative length along each section's points
        for i, s in enumerate(secs):
            pts = s["pt3d"]
            if len(pts) == 2 and s["nseg"] > 1:
                # One frustum and nseg CVs (NEURON's nseg): cut into nseg equal frusta, a CV each.
                a, b = pts
                pts = [[a[j] + (b[j] - a[j]) * k / s["nseg"] for j in range(4)] for k in range(s["nseg"] + 1)]
            if len(pts) - 1 != s["nseg"]:
                raise ValueError("gid %d section %d: nseg %d but %d segments; only one CV per segment "
                                 "(every_segment) or one segment cut in nseg is mapped" %
                                 (c["gid"], i, s["nseg"], len(pts) - 1))
            tag = tags.setdefault(mech_signature(s), len(tags) + 1)
            if s["parent"] < 0:
                parent = A.mnpos
            else:
                if abs(s["parent_x"] - 1.0) > 1e-12:
                    raise ValueError("gid %d section %d: parent_x %g (only 1 is mapped)" % (c["gid"], i, s["parent_x"]))
                parent = last_seg[s["parent"]]
            ids, cum = [], [0.0]
            for a, b in zip(pts[:-1], pts[1:]):
                parent = tree.append(parent, A.mpoint(a[0], a[1], a[2], a[3] / 2), A.mpoint(b[0], b[1], b[2], b[3] / 2), tag=tag)
                ids.append(parent)
                cum.append(cum[-1] + math.dist(a[:3], b[:3]))
            first_seg.append(ids[0])
            last_seg.append(ids[-1])
            arc.append(cum)

        def where(sec, x):
            cum, seg0 = arc[sec], first_seg[sec]
            target = x * cum[-1]
            tol = 1e-9 * max(cum[-1], 1.0)
            for k in range(len(cum) - 1):
                if abs(target - cum[k]) <= tol:
                    return "(proximal (segment %d))" % (seg0 + k) if k == 0 else "(distal (segment %d))" % (seg0 + k - 1)
                if abs(target - cum[k + 1]) <= tol:
                    return "(distal (segment %d))" % (seg0 + k)
                if cum[k] < target < cum[k + 1]:
                    return "(on-components %.17g (segment %d))" % ((target - cum[k]) / (cum[k + 1] - cum[k]), seg0 + k)
            raise ValueError("gid %d: x %g outside section %d" % (c["gid"], x, sec))

        d = A.decor()
        d.set_property(Vm=c["v_init"] * U.mV, tempK=(celsius + 273.15) * U.Kelvin)
        rev = {}
        for sig, tag in tags.items():
            mechs, cm, ra = json.loads(sig)
            reg = "(tag %d)" % tag
            d.paint(reg, cm=cm * 0.01 * U.F / U.m2, rL=ra * U.Ohm * U.cm)
            for name, params in mechs.items():
                params = dict(params)
                for p, ion in (("ena", "na"), ("ek", "k")):
                    if name == "hh" and p in params:
                        v = params.pop(p)
                        if rev.setdefault(ion, v) != v:
                            raise ValueError("gid %d: different %s on different sections" % (c["gid"], p))
                d.paint(reg, density(name, params))
        for ion, v in rev.items():
            d.set_ion(ion, rev_pot=v * U.mV)
        for k, det in enumerate(c["detectors"]):
            d.place(where(det["section"], det["x"]), A.threshold_detector(det["threshold"] * U.mV), "d%d" % k)
        nsyn = 0
        for pp in c["point_processes"]:
            if pp["kind"] == "iclamp" and "synapse" not in pp:
                q = pp["params"]
                d.place(where(pp["section"], pp["x"]), A.i_clamp(q["delay"] * U.ms, q["dur"] * U.ms, q["amp"] * U.nA))
                continue
            if "synapse" not in pp:
                raise ValueError("gid %d: point process %s (only synapses and current clamps are mapped)" %
                                 (c["gid"], pp["kind"]))
            if pp["synapse"] != nsyn:
                raise ValueError("gid %d: synapses out of order" % c["gid"])
            d.place(where(pp["section"], pp["x"]), A.synapse(pp["kind"], pp["params"]), "s%d" % nsyn)
            nsyn += 1
        if unconnected_detectors:
            # Arbor 0.12 records no spike of a detector that no connection names: such
            # detectors get a weightless connection onto this expsyn (Recipe), which adds
            # nothing to any current.
            det = c["detectors"][unconnected_detectors[0]]
            d.place(where(det["section"], det["x"]), A.synapse("expsyn"), "sink")
        # The dump's probes (arbolito's recorded columns) as Arbor's voltage probes, tag "p<k>".
        self.probes = [A.cable_probe_membrane_voltage(where(p["section"], p["x"]), "p%d" % k)
                       for k, p in enumerate(c.get("probes", []))]
        if extra_synapses:
            # ring.cpp: ls::uniform(reg::all(), 0, synapses-1, gid), never connected.
            d.place("(uniform (all) 0 %d %d)" % (extra_synapses - 1, c["gid"]), A.synapse("expsyn"), "x")
        self.cell = A.cable_cell(A.morphology(tree), d, A.label_dict(), A.cv_policy_every_segment())
        self.cvs_arbolito = sum(s["nseg"] for s in secs) + len(secs) + 1


class Recipe(A.recipe):
    def __init__(self, dump, ncells, extra_synapses):
        A.recipe.__init__(self)
        self.props = A.neuron_cable_properties()
        celsius = dump["run"]["celsius"]
        self.props.set_property(tempK=(celsius + 273.15) * U.Kelvin)
        cells = sorted(dump["cells"], key=lambda c: c["gid"])
        if [c["gid"] for c in cells] != list(range(len(cells))):
            raise ValueError("gids are not 0..N-1")
        sources = {(k["source"], k["detector"]) for k in dump["connections"]}
        unconnected = [[j for j in range(len(c["detectors"])) if (c["gid"], j) not in sources] for c in cells[:ncells]]
        self.cells = [Cell(c, celsius, extra_synapses, u) for c, u in zip(cells[:ncells], unconnected)]
        self.conns = [[] for _ in self.cells]
        for k in dump["connections"]:
            self.conns[k["target"]].append(A.connection((k["source"], "d%d" % k["detector"]), "s%d" % k["synapse"],
                                                        k["weight"], k["delay"] * U.ms))
        # Their delay the network's longest, so that Arbor's epochs (half the shortest) stay.
        delay = max((k["delay"] for k in dump["connections"]), default=1000.0)
        for gid, u in enumerate(unconnected):
            self.conns[gid] += [A.connection((gid, "d%d" % j), "sink", 0.0, delay * U.ms) for j in u]
        self.gens = [[] for _ in self.cells]
        for g in dump["generators"]:
            sched = A.explicit_schedule([t * U.ms for t in g["times"]])
            self.gens[g["target"]].append(A.event_generator("s%d" % g["synapse"], g["weight"], sched))

    def num_cells(self):
        return len(self.cells)

    def cell_kind(self, gid):
        return A.cell_kind.cable

    def cell_description(self, gid):
        return self.cells[gid].cell

    def connections_on(self, gid):
        return self.conns[gid]

    def event_generators(self, gid):
        return self.gens[gid]

    def global_properties(self, kind):
        return self.props

    def probes(self, gid):
        return self.cells[gid].probes


def main(argv):
    ap = argparse.ArgumentParser(description="arbolito's busyring in Arbor 0.12.2 (pip, CPU); one JSON line.")
    ap.add_argument("model", help="arbolito model JSON (busyring builder)")
    ap.add_argument("--cells", type=int, help="num-cells (overrides the model)")
    ap.add_argument("--tfinal", type=float, help="run length, ms (default: the model's)")
    ap.add_argument("--threads", type=int, default=1, help="arbor.context threads (default 1)")
    ap.add_argument("--reps", type=int, default=1, help="repetitions of sim.run() (default 1)")
    ap.add_argument("--arbolito", default=os.path.join(here, "..", "build", "app", "arbolito"),
                    help="arbolito binary for `info --geometry` (default build/app/arbolito)")
    ap.add_argument("--spikes", help="write the spikes of the last repetition here, 'gid time' per line")
    ap.add_argument("--traces", help="write the voltage at each of the dump's probes, sampled every run.sample_dt "
                                      "from 0, as JSON (times; per column gid, probe, values) here")
    ap.add_argument("--arbor-extra-synapses", action="store_true",
                    help="also place `synapses` unconnected expsyn per cell, as ring.cpp does "
                         "(for a model with unconnected-synapses 0)")
    args = ap.parse_args(argv)

    with open(args.model) as fh:
        model = json.load(fh)
    net = model.get("network", {})
    if net.get("builder") != "busyring":
        print("warning: not a busyring model; mapping the dump anyway", file=sys.stderr)
    if args.arbor_extra_synapses and int(net.get("unconnected-synapses", net.get("synapses", 1))) > 0:
        ap.error("--arbor-extra-synapses: the model places its own unconnected synapses "
                 "(network.unconnected-synapses, default `synapses`); set it to 0 to use Arbor's draw instead")
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as work:
        path = args.model
        if args.cells is not None:
            model["network"]["num-cells"] = args.cells
            # SWC paths would be relative to the model's folder; busyring has none.
            path = os.path.join(work, "model.json")
            with open(path, "w") as fh:
                json.dump(model, fh)
        geom = os.path.join(work, "geom.json")
        subprocess.run([args.arbolito, "info", path, "--geometry", geom, "--log-level", "warn"],
                       check=True, stdout=subprocess.DEVNULL)
        with open(geom) as fh:
            dump = json.load(fh)
    dump_s = time.perf_counter() - t0
    dump_run = dump["run"]
    dt = float(dump_run["dt"])
    tfinal = float(args.tfinal if args.tfinal is not None else dump["run"]["tfinal"])
    ncells = len(dump["cells"])

    t0 = time.perf_counter()
    extra = int(net.get("synapses", 1)) if args.arbor_extra_synapses else 0
    recipe = Recipe(dump, ncells, extra)
    del dump
    ctx = A.context(threads=args.threads)
    decomp = A.partition_load_balance(recipe, ctx)
    sim = A.simulation(recipe, ctx, decomp)
    sim.record(A.spike_recording.all)
    handles = []
    if args.traces:
        every = float(dump_run.get("sample_dt") or dt)
        for gid, c in enumerate(recipe.cells):
            for k in range(len(c.probes)):
                handles.append((gid, k, sim.sample((gid, "p%d" % k), A.regular_schedule(every * U.ms))))
    setup_s = time.perf_counter() - t0
    cvs = sum(A.cv_data(c.cell).num_cv for c in recipe.cells)
    cvs_arbolito = sum(c.cvs_arbolito for c in recipe.cells)
    steps = int(math.ceil(tfinal / dt - 1e-9))

    run_s, counts = [], []
    for r in range(args.reps):
        if r:
            sim.reset()
        t = time.perf_counter()
        sim.run(tfinal * U.ms, dt * U.ms)
        run_s.append(time.perf_counter() - t)
        spikes = sim.spikes()
        counts.append(len(spikes))  # reset() clears the recorded spikes
    if len(set(counts)) != 1:
        print("warning: spike counts differ between repetitions: %s" % counts, file=sys.stderr)
    if args.traces:
        columns, times = [], None
        for gid, k, h in handles:
            (data, _), = sim.samples(h)  # one location per probe
            times = data[:, 0].tolist() if times is None else times
            columns.append({"gid": gid, "probe": k, "v": data[:, 1].tolist()})
        with open(args.traces, "w") as fh:
            json.dump({"times": times or [], "columns": columns}, fh)
    if args.spikes:
        with open(args.spikes, "w") as fh:
            for (gid, _), t in sorted(((s[0][0], s[0][1]), s[1]) for s in spikes):
                fh.write("%d %.17g\n" % (gid, t))
    run_min = min(run_s)
    print(json.dumps({"simulator": "arbor %s (pip)" % A.__version__, "cells": ncells, "cvs": cvs,
                      "cvs_arbolito": cvs_arbolito, "steps": steps, "dt": dt, "tfinal": tfinal,
                      "setup_s": round(setup_s, 4), "dump_s": round(dump_s, 4),
                      "run_s": [round(x, 4) for x in run_s], "run_s_min": round(run_min, 4),
                      "ns_per_cv_step": round(1e9 * run_min / (cvs * steps), 3),
                      "spikes": counts[-1], "threads": args.threads,
                      "extra_synapses_per_cell": extra}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
