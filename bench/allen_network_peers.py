#!/usr/bin/python3
"""The Allen network of tools/allen_network.py in Arbor's Python package (CPU) and one of its
cells in NEURON: the peers arbolito is timed against (bench/RESULTS.md).

    allen_network_peers.py arbor DESC.json [--threads N] [--spikes FILE]
    allen_network_peers.py neuron DESC.json [--gid G] [--nrn-lib LIB] [--spikes FILE]

DESC.json is network.desc.json. `arbor`: the whole network with `import arbor` (PyPI
arbor 0.12.2, whose built-in `allen` catalogue holds Arbor's copies of the channels), built as
bench/allen_network_arbor.cpp builds it (that file's header says how: the dump's sections,
the fit's biophysics per section type, NEURON's CVs as far as Arbor reaches).
`neuron`: cell G alone (default 0) with its Poisson inputs, built from the dump's sections
with the fit applied by tools/allen_neuron.py's set_params_peri, Exp2Syn at the dump's nodes,
fixed step implicit Euler; connections from other cells are left out (give it a network of
one cell to compare with arbolito). LIB defaults to build-allen/allen_nrnmech/x86_64/
libnrnmech.so, compiled there from --allen's .mod files when missing.
Prints one line per field ("run_s 1.23"; NEURON's also run_cpu_s, the process's CPU time
over the run, for loaded machines) and a last line "RESULT {json}"; --spikes writes
"gid time" per spike. Exit status 0; 2 with one line for bad input.
"""
import argparse
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))

TYPE_OF_TAG = {1: "soma", 2: "axon", 7: "axon", 3: "dend", 4: "apic"}
REGION = {"soma": "(tag 1)", "axon": "(join (tag 2) (tag 7))", "dend": "(tag 3)", "apic": "(tag 4)"}
MASK64 = (1 << 64) - 1


class Bad(Exception):
    pass


class MT19937_64:
    """std::mt19937_64, bit for bit."""

    def __init__(self, seed):
        self.mt = [seed & MASK64]
        for i in range(1, 312):
            p = self.mt[-1]
            self.mt.append((6364136223846793005 * (p ^ (p >> 62)) + i) & MASK64)
        self.i = 312

    def __call__(self):
        mt = self.mt
        if self.i >= 312:
            for k in range(312):
                y = (mt[k] & 0xFFFFFFFF80000000) | (mt[(k + 1) % 312] & 0x7FFFFFFF)
                mt[k] = mt[(k + 156) % 312] ^ (y >> 1) ^ (0xB5026F5AA96619E9 if y & 1 else 0)
            self.i = 0
        y = mt[self.i]
        self.i += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        y ^= y >> 43
        return y & MASK64


def poisson_times(seed, rate_hz, start, stop):
    """arbolito's "poisson" generator: libstdc++'s exponential_distribution<double> over
    mt19937_64 (generate_canonical: one draw / 2^64; -log(1 - u) / lambda)."""
    gen, lam, out = MT19937_64(seed), rate_hz / 1000.0, []

    def isi():
        u = float(gen()) / 18446744073709551616.0
        if u >= 1.0:
            u = math.nextafter(1.0, 0.0)
        return -math.log(1.0 - u) / lam
    x = start + isi()
    while x < stop:
        out.append(x)
        x += isi()
    return out


def read_desc(path):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        raise Bad("%s: cannot read: %s" % (path, e))
    if d.get("format") != "allen-network-1":
        raise Bad("%s: \"format\" is not allen-network-1" % path)
    base = os.path.dirname(os.path.abspath(path))
    for f in d["fits"]:
        with open(os.path.join(base, f["geometry"])) as g:
            f["dump"] = json.load(g)
        with open(f["fit"]) as g:
            fj = json.load(g)
        f["fitjson"] = (fj["passive"][0], fj["conditions"][0], fj["genome"])
    d["fit_of"] = [None] * d["cells"]
    for i, f in enumerate(d["fits"]):
        for g in range(f["first_gid"], f["first_gid"] + f["count"]):
            d["fit_of"][g] = i
    if None in d["fit_of"]:
        raise Bad("%s: cell %d belongs to no fit" % (path, d["fit_of"].index(None)))
    return d


def seed_of(d, gid, k):
    return (d["poisson"]["seed"] << 40) + gid * d["synapses_per_cell"] + k


def report(fields, spikes, spikes_path):
    if spikes_path:
        with open(spikes_path, "w") as f:
            for g, t in spikes:
                f.write("%d %r\n" % (g, t))
    for k, v in fields.items():
        print(k, json.dumps(v))
    print("RESULT " + json.dumps(fields), flush=True)


# ------------------------------------------------------------------------------------ Arbor
class ArborFit:
    """One fit's Arbor cell template (as bench/allen_network_arbor.cpp builds it)."""

    def __init__(self, arbor, U, f):
        sections = f["dump"]["cells"][0]["sections"]
        tree = arbor.segment_tree()
        self.nseg = [s["nseg"] for s in sections]
        first, last, segs = [], [], []  # segs: my id -> (prox, dist, tag)

        def add(parent, p, q, tag):
            i = tree.append(parent, arbor.mpoint(*p), arbor.mpoint(*q), tag=tag)
            segs.append((tuple(p), tuple(q), tag))
            return i

        pts_of = lambda sec: [(x, y, z, d / 2) for x, y, z, d in sec["pt3d"]]  # noqa: E731
        soma_mid = None
        for s, sec in enumerate(sections):
            tag, pts = sec["tag"], pts_of(sec)
            if tag not in TYPE_OF_TAG or len(pts) < 2:
                raise Bad("%s: sections[%d]: tag %r or fewer than 2 points" % (f["geometry"], s, tag))
            first.append(len(segs))
            if s == 0:
                if sec["nseg"] % 2 == 0:
                    raise Bad("%s: the soma's nseg is even" % f["geometry"])
                at = [0.0]
                for a, b in zip(pts, pts[1:]):
                    at.append(at[-1] + math.dist(a[:3], b[:3]))
                half, prev, cut = at[-1] / 2, arbor.mnpos, False
                for i in range(1, len(pts)):
                    if not cut and at[i] == half:
                        soma_mid = prev = add(prev, pts[i - 1], pts[i], 1)
                        cut = True
                    elif not cut and at[i] > half:
                        fr = (half - at[i - 1]) / (at[i] - at[i - 1])
                        m = tuple(pts[i - 1][j] + fr * (pts[i][j] - pts[i - 1][j]) for j in range(4))
                        soma_mid = prev = add(prev, pts[i - 1], m, 1)
                        prev = add(prev, m, pts[i], 1)
                        cut = True
                    else:
                        prev = add(prev, pts[i - 1], pts[i], 1)
                last.append(prev)
                continue
            if sec["parent"] == 0 and sec["parent_x"] == 0.5:
                prev = soma_mid
            elif sec["parent_x"] == 1.0:
                prev = last[sec["parent"]]
            else:
                raise Bad("%s: sections[%d] attached at x = %r" % (f["geometry"], s, sec["parent_x"]))
            first[-1] = len(segs)
            for a, b in zip(pts, pts[1:]):
                prev = add(prev, a, b, tag)
            last.append(prev)
        self.morph = arbor.morphology(tree)
        # Arbor's branches list segments without ids: match them by their points and tag.
        key_to_id = {}
        for i, key in enumerate(segs):
            key_to_id.setdefault(key, []).append(i)
        where = [None] * len(segs)
        for b in range(self.morph.num_branches):
            bs = self.morph.branch_segments(b)
            lens = [math.dist((sg.prox.x, sg.prox.y, sg.prox.z), (sg.dist.x, sg.dist.y, sg.dist.z)) for sg in bs]
            total, run = sum(lens), 0.0
            for sg, ln in zip(bs, lens):
                key = ((sg.prox.x, sg.prox.y, sg.prox.z, sg.prox.radius), (sg.dist.x, sg.dist.y, sg.dist.z, sg.dist.radius), sg.tag)
                ids = key_to_id.get(key, [])
                if len(ids) != 1:
                    raise Bad("%s: a segment of branch %d matches %d of the tree's" % (f["geometry"], b, len(ids)))
                where[ids[0]] = (b, run / total if total else 0.0, (run + ln) / total if total else 1.0)
                run += ln
        self.soma_a, self.soma_b = where[soma_mid][0], where[last[0]][0]
        self.spans = [None] + [(where[first[s]][0], where[first[s]][1], where[last[s]][2]) for s in range(1, len(sections))]
        bounds = []
        for s, n in enumerate(self.nseg):
            ks = range(1, n) if s == 0 else range(0, n + 1)
            bounds += [self.where(s, k / n) for k in ks]
        self.policy = arbor.cv_policy_explicit("(sum %s)" % " ".join("(location %d %r)" % l for l in sorted(set(bounds))))
        self.decor = self.biophysics(arbor, U, f, sections)

    def where(self, s, x):
        if s == 0:
            return (self.soma_a, 2 * x) if x <= 0.5 else (self.soma_b, 2 * x - 1)
        b, p, q = self.spans[s]
        return (b, p + x * (q - p))

    @staticmethod
    def biophysics(arbor, U, f, sections):
        passive, cond, genome = f["fitjson"]
        present = {TYPE_OF_TAG[s["tag"]] for s in sections}
        d = arbor.decor()
        d.set_property(Vm=cond["v_init"] * U.mV, cm=0.01 * U.F / U.m2, rL=passive["ra"] * U.Ohm * U.cm,
                       tempK=(cond["celsius"] + 273.15) * U.Kelvin)
        d.set_ion("ca", method=arbor.mechanism("nernst/ca"))
        for c in passive["cm"]:
            if c["section"] in present:
                d.paint(REGION[c["section"]], cm=c["cm"] * 0.01 * U.F / U.m2)
        mechs, g_pas = {}, {}
        for g in genome:
            mech = g["mechanism"] or "pas"
            param = g["name"][: -len(mech) - 1]
            if mech == "pas":
                g_pas[g["section"]] = g["value"]
            else:
                mechs.setdefault(mech, {}).setdefault(g["section"], {})[param] = g["value"]
        for t in ("soma", "axon", "dend", "apic"):
            if t in present:
                d.paint(REGION[t], arbor.density("pas/e=%r" % passive["e_pas"], {"g": g_pas.get(t, 0.001)}))
        for mech, by_type in mechs.items():
            for t, params in by_type.items():
                if t in present:
                    d.paint(REGION[t], arbor.density(mech, params))
        for e in cond["erev"]:
            if e["section"] in present:
                for ion in ("na", "k"):
                    if "e" + ion in e:
                        d.paint(REGION[e["section"]], ion=ion, rev_pot=e["e" + ion] * U.mV)
        return d


def run_arbor(d, threads, spikes_path):
    import arbor
    U = arbor.units
    t0 = time.perf_counter()
    syn = d["synapse"]
    k_syn = d["synapses_per_cell"]
    cells = []
    for f in d["fits"]:
        af = ArborFit(arbor, U, f)
        dec = af.decor
        for k, site in enumerate(f["synapses"]):
            b, p = af.where(site["section"], site["x"])
            dec.place("(location %d %r)" % (b, p),
                      arbor.synapse(syn["kind"], {"tau1": syn["tau1"], "tau2": syn["tau2"], "e": syn["e"]}), "s%d" % k)
        sb, sp = af.where(0, 0.5)
        dec.place("(location %d %r)" % (sb, sp), arbor.threshold_detector(d["run"]["threshold"] * U.mV), "d")
        if d["step"]:
            st = d["step"]
            dec.place("(location %d %r)" % (sb, sp), arbor.i_clamp(st["delay"] * U.ms, st["dur"] * U.ms, st["amp"] * U.nA))
        cells.append(arbor.cable_cell(af.morph, dec, arbor.label_dict(), discretization=af.policy))
    cvs_of_fit = [arbor.cv_data(c).num_cv for c in cells]
    conns = [[] for _ in range(d["cells"])]
    col = d["connections"]
    for s, t, k, w, dl in zip(col["source"], col["target"], col["synapse"], col["weight"], col["delay"]):
        conns[t].append((s, k, w, dl))
    sources = set(col["source"])
    pz = d["poisson"]

    class Recipe(arbor.recipe):
        def __init__(self):
            arbor.recipe.__init__(self)
            self.props = arbor.neuron_cable_properties()
            self.props.catalogue.extend(arbor.allen_catalogue(), "")

        def num_cells(self):
            return d["cells"]

        def cell_kind(self, gid):
            return arbor.cell_kind.cable

        def cell_description(self, gid):
            return cells[d["fit_of"][gid]]

        def global_properties(self, kind):
            return self.props

        def connections_on(self, gid):
            out = [arbor.connection((s, "d"), "s%d" % k, w, dl * U.ms) for s, k, w, dl in conns[gid]]
            if gid not in sources:
                # Arbor 0.12 records no spike of a cell that no connection leaves (one hh cell
                # shows it): a connection onto itself of weight 0, which moves no state.
                out.append(arbor.connection((gid, "d"), "s0", 0.0, d["min_delay"] * U.ms))
            return out

        def event_generators(self, gid):
            return [arbor.event_generator("s%d" % k, pz["weight"],
                                          arbor.explicit_schedule([t * U.ms for t in poisson_times(
                                              seed_of(d, gid, k), pz["rate_hz"], pz["start"], pz["stop"])]))
                    for k in range(k_syn)]

    ctx = arbor.context(threads=threads)
    rec = Recipe()
    sim = arbor.simulation(rec, ctx)
    sim.record(arbor.spike_recording.all)
    setup = time.perf_counter() - t0
    t1 = time.perf_counter()
    sim.run(d["run"]["tfinal"] * U.ms, d["run"]["dt"] * U.ms)
    run = time.perf_counter() - t1
    spikes = [(int(s[0][0]), float(s[1])) for s in sim.spikes()]
    cvs = sum(cvs_of_fit[f] for f in d["fit_of"])
    steps = round(d["run"]["tfinal"] / d["run"]["dt"])
    report({"simulator": "arbor %s (python)" % arbor.__version__, "backend": "cpu", "threads": threads,
            "cells": d["cells"], "cvs": cvs, "cvs_per_fit": cvs_of_fit, "setup_s": setup, "run_s": run,
            "spikes": len(spikes), "ns_per_cv_step": run * 1e9 / (cvs * steps)}, spikes, spikes_path)


# ----------------------------------------------------------------------------------- NEURON
def run_neuron(d, gid, lib, allen, spikes_path):
    import allen_neuron
    if not os.path.exists(lib):
        allen_neuron.compile_mechs(os.path.join(allen, "mechanisms"), os.path.dirname(os.path.dirname(lib)))
    t0 = time.perf_counter()
    h = allen_neuron.neuron_with(lib)
    f = d["fits"][d["fit_of"][gid]]
    sections = f["dump"]["cells"][0]["sections"]
    secs, by_type = [], {}
    for k, s in enumerate(sections):
        sec = allen_neuron.section_from_dump(h, s, "s%d" % k, secs)
        secs.append(sec)
        by_type.setdefault(TYPE_OF_TAG[s["tag"]], []).append(sec)
    allen_neuron.set_params_peri(h, by_type, f["fitjson"], False)
    passive, cond, _ = f["fitjson"]
    h.celsius = cond["celsius"]
    syn, pz = d["synapse"], d["poisson"]
    keep = []
    for k, site in enumerate(f["synapses"]):
        sy = h.Exp2Syn(secs[site["section"]](site["x"]))
        sy.tau1, sy.tau2, sy.e = syn["tau1"], syn["tau2"], syn["e"]
        nc = h.NetCon(None, sy)
        nc.weight[0] = pz["weight"]
        keep.append((sy, nc, poisson_times(seed_of(d, gid, k), pz["rate_hz"], pz["start"], pz["stop"])))
    if d["step"]:
        st = h.IClamp(secs[0](0.5))
        st.delay, st.dur, st.amp = d["step"]["delay"], d["step"]["dur"], d["step"]["amp"]
        keep.append(st)
    det = h.NetCon(secs[0](0.5)._ref_v, None, sec=secs[0])
    det.threshold = d["run"]["threshold"]
    tvec = h.Vector()
    det.record(tvec)

    def queue():
        for _, nc, times in keep[:len(f["synapses"])]:
            for t in times:
                nc.event(t)
    keep.append(h.FInitializeHandler(queue))  # alive until finitialize has run it
    h.dt = d["run"]["dt"]
    h.secondorder = 0
    h.cvode_active(0)
    h.finitialize(cond["v_init"])
    setup = time.perf_counter() - t0
    t1, c1 = time.perf_counter(), time.process_time()
    h.continuerun(d["run"]["tfinal"])
    run, run_cpu = time.perf_counter() - t1, time.process_time() - c1
    cvs = sum(s.nseg for s in secs)
    steps = round(d["run"]["tfinal"] / d["run"]["dt"])
    report({"simulator": "neuron %s" % h.nrnversion(5), "backend": "cpu", "threads": 1, "cells": 1, "gid": gid,
            "cvs": cvs, "setup_s": setup, "run_s": run, "run_cpu_s": run_cpu, "spikes": len(tvec),
            "ns_per_cv_step": run * 1e9 / (cvs * steps),
            "note": "connections from other cells left out" if d["in_degree"] and d["cells"] > 1 else ""},
           [(gid, t) for t in tvec], spikes_path)


def main(argv):
    ap = argparse.ArgumentParser(description="the Allen network in Arbor (Python, CPU) and one cell in NEURON")
    ap.add_argument("simulator", choices=["arbor", "neuron"])
    ap.add_argument("desc")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--gid", type=int, default=0)
    ap.add_argument("--nrn-lib", default=os.path.join(ROOT, "build-allen", "allen_nrnmech", "x86_64", "libnrnmech.so"))
    ap.add_argument("--allen", default=os.path.join(os.path.dirname(ROOT), "shared", "models", "allen"))
    ap.add_argument("--spikes")
    a = ap.parse_args(argv)
    try:
        d = read_desc(a.desc)
        if a.simulator == "arbor":
            if a.threads < 1:
                raise Bad("--threads must be >= 1")
            run_arbor(d, a.threads, a.spikes)
        else:
            if not 0 <= a.gid < d["cells"]:
                raise Bad("--gid %d: the network has cells 0 to %d" % (a.gid, d["cells"] - 1))
            run_neuron(d, a.gid, a.nrn_lib, a.allen, a.spikes)
    except (Bad, OSError, KeyError, ValueError) as e:
        print("allen_network_peers.py: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
