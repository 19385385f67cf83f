#!/usr/bin/python3
"""Run the model of an arbolito geometry dump in NEURON; write SONATA output.

    run_neuron.py GEOMETRY.json OUT.h5 [--timings] [--float64] [--exact-cylinders]
                                       [--fadvance] [--cache-efficient] [--mechanisms LIB]

GEOMETRY.json is what `arbolito info --geometry` writes (docs/geometry-dump.md): the
model fully discretised in NEURON's terms. This script rebuilds it with NEURON's own
machinery (pt3d sections, nseg, hh, pas, IClamp, ExpSyn, Exp2Syn, NetCon) and never
reads arbolito's model file or SWC: it is the independent reference that the
arbolito-vs-NEURON validation compares against. OUT.h5 has the layout of
docs/sonata-output.md (/report/<pop>/... and /spikes/<pop>/...).

Numerics (all NEURON's defaults for the fixed step, checked by experiment, see
tests/neuron/README.md):
  * cvode off, secondorder = 0 (implicit Euler), usetable_hh = 0 (exact hh rates),
    dt and celsius from the dump, steps_per_ms = 1/dt.
  * The run is round(tfinal/dt) steps of dt (ParallelContext.psolve, or a fadvance loop
    with --fadvance; both give bit-identical results). NEURON accumulates t += dt, so
    its t drifts from k*dt by ~1e-14 ms.
  * Spikes: NEURON's fixed step records a spike at the END time t(n+1) of the step after
    which v is first found above threshold (no interpolation), plus 1e-10 ms (NEURON's
    threshold-check offset), i.e. 1.475 is stored as 1.4750000001. These times are
    written unchanged; compare with a tolerance of a few 1e-10 ms, or snap to the grid.
  * Events (from NetCon connections, delay added to that spike time, and from
    generators) are delivered at the start of the step starting at t when
    event_time <= t + dt/2 (nearest step; exact ties depend on the rounding of NEURON's
    accumulated t). That is the "neuron" event_rules of docs/event-rules.md; comparisons of
    network spike times are exact only with dumps made with event_rules = "neuron".
  * IClamp injects amp (nA, > 0 depolarising) in a step when the step's midpoint
    t + dt/2 lies in [delay, delay + dur).
  * Voltage samples: Vector.record(&v, sample_dt) records at the start of the step in
    which its event k*sample_dt is due (same t + dt/2 rule), i.e. the value at
    t = k*sample_dt exactly; frames k = 0 .. n_frames-1 with k*sample_dt < tfinal (none
    at tfinal: NEURON does not record it, and it would be dropped if it did).
  * NEURON stores pt3d points and diameters in single precision (float32): areas and
    axial resistances follow from the float32-rounded points. --exact-cylinders builds
    every section given by exactly two points of equal diameter with L and diam (double)
    instead, for comparisons at round-off level.
  * VecStim is NOT built into NEURON 8.2 (it is an example .mod file needing
    nrnivmodl, which Debian's package lacks). Generators are played by a source-less
    NetCon per (generator, target) whose NetCon.event(t) is called for every time
    after finitialize: same delivery rule as VecStim + NetCon(delay 0).

--timings prints, as JSON on the last line of stdout:
  {"setup_s", "run_s", "write_s", "n_nodes", "steps", "n_cells", "n_spikes"}
with run_s NEURON's integration time only (set-up and finitialize are in setup_s).
n_nodes counts NEURON's nodes: nseg + 1 per section (x = 1 node included) plus the
x = 0 node of each root section.
--cache-efficient turns on CVode.cache_efficient(1) (node data in contiguous arrays;
same results, much faster on large models: 9x on the 64-cell busyring). Off by default,
as in NEURON.
--mechanisms LIB loads compiled .mod files (nrnivmodl's libnrnmech.so): a section's
mechanism other than hh and pas is then inserted by its name, its parameters set as
RANGE variables name_mechanism. A section's "ions" set e on its segments (eX, kept through
finitialize where no mechanism uses the concentrations, as NEURON does) and xi, xo as
NEURON's initial concentrations (Xi0_X_ion, Xo0_X_ion: one value per species for the whole
dump, else an error). A probe's "variable" records <ion>.e/.xi/.xo/.i as eX, Xi, Xo, iX and
<mechanism>.<state> as state_mechanism (or the ion's own variable where the state is a
concentration the mechanism writes, as NMODL's STATE { cai }).
--float64 writes /report/<pop>/data as float64 instead of float32 (libsonata refuses
it; h5py comparisons at round-off level need it).
Exit status: 0 on success, 1 on an error in the dump (message on stderr), 2 on usage.
"""

import argparse
import json
import math
import os
import sys
import time

FORMAT = "arbolito-geometry-1"

HH_PARAMS = ("gnabar", "gkbar", "gl", "ena", "ek", "el")
PAS_PARAMS = ("g", "e")
POINT_PARAMS = {
    "iclamp": ("delay", "dur", "amp"),
    "expsyn": ("tau", "e"),
    "exp2syn": ("tau1", "tau2", "e"),
}


class DumpError(Exception):
    pass


def need(obj, key, where):
    if not isinstance(obj, dict) or key not in obj:
        raise DumpError("%s: missing key '%s'" % (where, key))
    return obj[key]


def num(obj, key, where):
    v = need(obj, key, where)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise DumpError("%s.%s: expected a finite number, got %r" % (where, key, v))
    return float(v)


def check_params(given, names, where):
    if not isinstance(given, dict):
        raise DumpError("%s: expected an object" % where)
    extra = sorted(set(given) - set(names))
    if extra:
        raise DumpError("%s: unknown parameter(s) %s (known: %s)" % (where, ", ".join(extra), ", ".join(names)))
    return {k: num(given, k, where) for k in names}


def is_multiple(a, b):
    """True when a is an integer multiple of b (up to round-off)."""
    q = a / b
    return abs(q - round(q)) < 1e-9 * max(1.0, abs(q))


class Model:
    """The NEURON objects of one dump; keep references so that NEURON keeps them."""

    def __init__(self, h, dump, exact_cylinders=False, loaded_mechanisms=False):
        self.h = h
        self.loaded_mechanisms = loaded_mechanisms
        self.ion_initial = {}  # Xi0_X_ion, Xo0_X_ion: the dump's initial concentrations
        if dump.get("format") != FORMAT:
            raise DumpError("format: expected '%s', got %r" % (FORMAT, dump.get("format")))
        run = need(dump, "run", "dump")
        self.population = str(need(dump, "population", "dump"))
        self.dt = num(run, "dt", "run")
        self.tfinal = num(run, "tfinal", "run")
        self.sample_dt = num(run, "sample_dt", "run")
        self.celsius = num(run, "celsius", "run")
        self.event_rules = run.get("event_rules", "neuron")
        if self.dt <= 0 or self.tfinal <= 0 or self.sample_dt <= 0:
            raise DumpError("run: dt, tfinal and sample_dt must be positive")
        if not is_multiple(self.sample_dt, self.dt):
            raise DumpError("run: sample_dt %g is not a multiple of dt %g" % (self.sample_dt, self.dt))
        if not is_multiple(self.tfinal, self.dt):
            raise DumpError("run: tfinal %g is not a multiple of dt %g" % (self.tfinal, self.dt))
        self.steps = int(round(self.tfinal / self.dt))
        # SONATA: frames at start + k*step while t < stop (libsonata: t < stop - 1e-6).
        self.n_frames = int(math.ceil(self.tfinal / self.sample_dt - 1e-9))

        self.cells = {}         # gid -> list of sections
        self.synapses = {}      # (gid, synapse index) -> point process
        self.stimuli = []
        self.detectors = {}     # (gid, detector index) -> (section, x, threshold)
        self.spike_vecs = []    # (gid, Vector of times)
        self.netcons = []
        self.generator_events = []  # (NetCon, [times])
        self.probes = []        # (gid, Vector, element_id, element_pos)
        self.v_init = {}
        self.n_nodes = 0

        cells = need(dump, "cells", "dump")
        for ci, cell in enumerate(cells):
            self._build_cell(cell, "cells[%d]" % ci, exact_cylinders)
        for k, c in enumerate(dump.get("connections", [])):
            self._connect(c, "connections[%d]" % k)
        for k, g in enumerate(dump.get("generators", [])):
            self._generator(g, "generators[%d]" % k)

    # ---------------------------------------------------------------- cells
    def _section_ref(self, gid, secs, obj, where):
        s = int(need(obj, "section", where))
        if not 0 <= s < len(secs):
            raise DumpError("%s.section: %d is not a section of cell %d" % (where, s, gid))
        x = num(obj, "x", where)
        if not 0.0 <= x <= 1.0:
            raise DumpError("%s.x: %g is outside [0, 1]" % (where, x))
        return secs[s], x

    def _build_cell(self, cell, where, exact_cylinders):
        h = self.h
        gid = int(need(cell, "gid", where))
        if gid < 0 or gid in self.cells:
            raise DumpError("%s.gid: %d is negative or repeated" % (where, gid))
        self.v_init[gid] = num(cell, "v_init", where)
        secs = []
        for si, sd in enumerate(need(cell, "sections", where)):
            sw = "%s.sections[%d]" % (where, si)
            sec = h.Section(name="c%d_s%d" % (gid, si))
            pts = need(sd, "pt3d", sw)
            if len(pts) < 2:
                raise DumpError("%s.pt3d: needs at least 2 points" % sw)
            for p in pts:
                if len(p) != 4:
                    raise DumpError("%s.pt3d: points are [x, y, z, diam]" % sw)
            cyl = (exact_cylinders and len(pts) == 2 and pts[0][3] == pts[1][3])
            if cyl:
                # L and diam are doubles in NEURON; pt3d values are float32.
                sec.L = math.dist(pts[0][:3], pts[1][:3])
                sec.diam = float(pts[0][3])
            else:
                sec.pt3dclear()
                for p in pts:
                    sec.pt3dadd(float(p[0]), float(p[1]), float(p[2]), float(p[3]))
            parent = int(need(sd, "parent", sw))
            if si == 0:
                if parent != -1:
                    raise DumpError("%s.parent: section 0 must be the root (parent -1)" % sw)
            else:
                if not 0 <= parent < si:
                    raise DumpError("%s.parent: %d must be an earlier section" % (sw, parent))
                px = num(sd, "parent_x", sw)
                if not 0.0 <= px <= 1.0:
                    raise DumpError("%s.parent_x: %g is outside [0, 1]" % (sw, px))
                sec.connect(secs[parent](px), 0)
            nseg = int(need(sd, "nseg", sw))
            if nseg < 1:
                raise DumpError("%s.nseg: must be >= 1" % sw)
            sec.nseg = nseg
            sec.Ra = num(sd, "ra", sw)
            sec.cm = num(sd, "cm", sw)
            mechs = sd.get("mechanisms", {})
            for name in mechs:
                mw = "%s.mechanisms.%s" % (sw, name)
                if name == "hh":
                    p = check_params(mechs[name], HH_PARAMS, mw)
                    sec.insert("hh")
                    for seg in sec:
                        seg.gnabar_hh = p["gnabar"]
                        seg.gkbar_hh = p["gkbar"]
                        seg.gl_hh = p["gl"]
                        seg.el_hh = p["el"]
                        # ena and ek belong to the na and k ions that hh uses.
                        seg.ena = p["ena"]
                        seg.ek = p["ek"]
                elif name == "pas":
                    p = check_params(mechs[name], PAS_PARAMS, mw)
                    sec.insert("pas")
                    for seg in sec:
                        seg.g_pas = p["g"]
                        seg.e_pas = p["e"]
                elif self.loaded_mechanisms:
                    try:
                        sec.insert(name)
                    except ValueError:
                        raise DumpError("%s: unknown mechanism (hh, pas, or one of --mechanisms)" % mw)
                    for pname, value in mechs[name].items():
                        for seg in sec:
                            try:
                                setattr(seg, "%s_%s" % (pname, name), float(value))
                            except (AttributeError, LookupError, NameError):
                                raise DumpError("%s.%s: not a RANGE variable of %s" % (mw, pname, name))
                else:
                    raise DumpError("%s: unknown mechanism (known: hh, pas; others need --mechanisms)" % mw)
            for ion, values in sd.get("ions", {}).items():
                iw = "%s.ions.%s" % (sw, ion)
                for key, value in values.items():
                    if key == "e":
                        for seg in sec:
                            setattr(seg, "e" + ion, float(value))
                    elif key in ("xi", "xo"):
                        glob = "%s%s0_%s_ion" % (ion, key[1], ion)
                        if self.ion_initial.setdefault(glob, float(value)) != float(value):
                            raise DumpError("%s.%s: NEURON takes one initial %s for all sections" % (iw, key, glob))
                        setattr(h, glob, float(value))
                    else:
                        raise DumpError("%s.%s: unknown key (e, xi, xo)" % (iw, key))
            secs.append(sec)
            self.n_nodes += nseg + 1 + (1 if si == 0 else 0)
        if not secs:
            raise DumpError("%s.sections: a cell needs at least one section" % where)
        self.cells[gid] = secs

        for k, pp in enumerate(cell.get("point_processes", [])):
            pw = "%s.point_processes[%d]" % (where, k)
            kind = need(pp, "kind", pw)
            if kind not in POINT_PARAMS:
                raise DumpError("%s.kind: unknown point process %r (known: %s)" % (pw, kind, ", ".join(POINT_PARAMS)))
            sec, x = self._section_ref(gid, secs, pp, pw)
            p = check_params(need(pp, "params", pw), POINT_PARAMS[kind], pw + ".params")
            if kind == "iclamp":
                o = h.IClamp(sec(x))
                o.delay = p["delay"]   # IClamp's `del` (a Python keyword) is exposed as `delay`
                o.dur = p["dur"]
                o.amp = p["amp"]
                self.stimuli.append(o)
                continue
            if kind == "expsyn":
                o = h.ExpSyn(sec(x))
                o.tau = p["tau"]
                o.e = p["e"]
            else:
                o = h.Exp2Syn(sec(x))
                o.tau1 = p["tau1"]
                o.tau2 = p["tau2"]
                o.e = p["e"]
            s = int(need(pp, "synapse", pw))
            if (gid, s) in self.synapses:
                raise DumpError("%s.synapse: %d is repeated on cell %d" % (pw, s, gid))
            self.synapses[(gid, s)] = o

        for k, d in enumerate(cell.get("detectors", [])):
            dw = "%s.detectors[%d]" % (where, k)
            sec, x = self._section_ref(gid, secs, d, dw)
            thr = num(d, "threshold", dw)
            self.detectors[(gid, k)] = (sec, x, thr)
            # One NetCon without target per detector records its spikes. NEURON shares one
            # threshold detector (PreSyn) among all NetCons watching the same v.
            nc = h.NetCon(sec(x)._ref_v, None, sec=sec)
            nc.threshold = thr
            tv = h.Vector()
            nc.record(tv)
            self.netcons.append(nc)
            self.spike_vecs.append((gid, tv))
        seen = {}
        for (g, _), (sec, x, thr) in self.detectors.items():
            if g != gid:
                continue
            key = (sec.name(), sec(x).x)
            if key in seen and seen[key] != thr:
                raise DumpError("%s.detectors: two thresholds on one node (NEURON shares one detector)" % where)
            seen[key] = thr

        for k, pr in enumerate(cell.get("probes", [])):
            pw = "%s.probes[%d]" % (where, k)
            sec, x = self._section_ref(gid, secs, pr, pw)
            v = h.Vector()
            v.record(self._probe_ref(sec(x), pr.get("variable", "v"), pw), self.sample_dt)
            self.probes.append((gid, v, int(need(pr, "element_id", pw)), num(pr, "element_pos", pw)))

    def _probe_ref(self, seg, variable, where):
        if variable == "v":
            return seg._ref_v
        head, _, tail = variable.partition(".")
        names = {"e": "e" + head, "xi": head + "i", "xo": head + "o", "i": "i" + head}
        candidates = [names[tail]] if tail in names else ["%s_%s" % (tail, head), tail]
        for name in candidates:
            try:
                return getattr(seg, "_ref_" + name)
            except (AttributeError, NameError):
                pass
        raise DumpError("%s.variable: NEURON has no %s here" % (where, variable))

    # ---------------------------------------------------------- connections
    def _synapse(self, obj, where, gid_key):
        gid = int(need(obj, gid_key, where))
        s = int(need(obj, "synapse", where))
        if (gid, s) not in self.synapses:
            raise DumpError("%s: cell %d has no synapse %d" % (where, gid, s))
        return self.synapses[(gid, s)]

    def _connect(self, c, where):
        h = self.h
        src = int(need(c, "source", where))
        det = int(need(c, "detector", where))
        if (src, det) not in self.detectors:
            raise DumpError("%s: cell %d has no detector %d" % (where, src, det))
        syn = self._synapse(c, where, "target")
        sec, x, thr = self.detectors[(src, det)]
        nc = h.NetCon(sec(x)._ref_v, syn, sec=sec)
        nc.threshold = thr
        nc.weight[0] = num(c, "weight", where)
        nc.delay = num(c, "delay", where)
        # The event time is the spike time (step end + 1e-10, see the module comment)
        # plus delay; it is delivered in the step whose start t has event <= t + dt/2.
        self.netcons.append(nc)

    def _generator(self, g, where):
        h = self.h
        syn = self._synapse(g, where, "target")
        times = need(g, "times", where)
        for t in times:
            if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t):
                raise DumpError("%s.times: %r is not a number" % (where, t))
        nc = h.NetCon(None, syn)
        nc.weight[0] = num(g, "weight", where)
        nc.delay = 0.0  # NetCon.event(t) delivers at t itself in any case
        self.netcons.append(nc)
        self.generator_events.append((nc, [float(t) for t in times]))

    # ------------------------------------------------------------------ run
    def _queue_generators(self):
        for nc, times in self.generator_events:
            for t in times:
                if 0.0 <= t < self.tfinal:
                    nc.event(t)

    def initialize(self):
        h = self.h
        # FInitializeHandler (type 1): runs inside finitialize after the event queue was
        # cleared and the mechanisms initialised, so the generator events survive.
        self._fih = h.FInitializeHandler(1, self._queue_generators)
        values = set(self.v_init.values())
        if len(values) <= 1:
            h.finitialize(values.pop() if values else -65.0)
        else:
            # finitialize() without an argument leaves v alone and starts every state
            # (hh m, h, n) at its steady state for each node's own v.
            for gid, secs in self.cells.items():
                for sec in secs:
                    for seg in sec.allseg():
                        seg.v = self.v_init[gid]
            h.finitialize()

    def run(self, use_fadvance):
        h = self.h
        if use_fadvance:
            for _ in range(self.steps):
                h.fadvance()
        else:
            pc = h.ParallelContext()
            # psolve needs a positive "min delay"; with one process and no gids it only
            # sets the length of the integration chunks, not the result.
            pc.set_maxstep(10.0)
            # Integrates while t < tstop - dt/2, i.e. exactly self.steps steps.
            pc.psolve(self.tfinal)
        if abs(h.t - self.tfinal) > 0.5 * self.dt:
            raise RuntimeError("NEURON stopped at t = %r, expected %r" % (h.t, self.tfinal))


def write_sonata(model, path, float64=False):
    import h5py
    import numpy as np

    tmp = path + ".partial"
    pop = model.population
    with h5py.File(tmp, "w") as f:
        f.attrs.create("magic", np.uint32(0x0A7A))
        f.attrs.create("version", np.array([0, 1], dtype=np.uint32))

        if model.probes:
            n = len(model.probes)
            nf = model.n_frames
            data = np.empty((nf, n), dtype=np.float64)
            for j, (_, vec, _, _) in enumerate(model.probes):
                a = vec.as_numpy()
                if len(a) < nf:
                    raise RuntimeError("NEURON recorded %d frames, expected %d" % (len(a), nf))
                data[:, j] = a[:nf]  # a frame at t = tfinal, if any, is dropped
            node_ids, pointers = [], [0]
            for j, (gid, _, _, _) in enumerate(model.probes):
                if node_ids and node_ids[-1] == gid:
                    pointers[-1] = j + 1
                else:
                    if gid in node_ids:
                        raise RuntimeError("probes of cell %d are not contiguous" % gid)
                    node_ids.append(gid)
                    pointers.append(j + 1)
            rep = f.create_group("report").create_group(pop)
            dtype = np.float64 if float64 else np.float32
            row_bytes = n * np.dtype(dtype).itemsize
            chunk_rows = max(1, min(64, (1 << 20) // row_bytes, nf if nf > 0 else 1))
            d = rep.create_dataset("data", data=data.astype(dtype), maxshape=(None, n),
                                   chunks=(chunk_rows, n))
            d.attrs["units"] = "mV"
            m = rep.create_group("mapping")
            ids = m.create_dataset("node_ids", data=np.array(node_ids, dtype=np.uint64))
            if all(a < b for a, b in zip(node_ids, node_ids[1:])):
                ids.attrs.create("sorted", np.int8(1))
            m.create_dataset("index_pointers", data=np.array(pointers, dtype=np.uint64))
            m["index_pointer"] = m["index_pointers"]  # hard link, for BMTK
            m.create_dataset("element_ids", data=np.array([p[2] for p in model.probes], dtype=np.uint32))
            m.create_dataset("element_pos", data=np.array([p[3] for p in model.probes], dtype=np.float32))
            t = m.create_dataset("time", data=np.array([0.0, model.tfinal, model.sample_dt], dtype=np.float64))
            t.attrs["units"] = "ms"

        spikes = []
        for gid, tv in model.spike_vecs:
            spikes.extend((float(t), gid) for t in tv)
        spikes.sort()
        sp = f.create_group("spikes").create_group(pop)
        sorting = h5py.enum_dtype({"none": 0, "by_id": 1, "by_time": 2}, basetype="u1")
        sp.attrs.create("sorting", 2, dtype=sorting)
        ts = sp.create_dataset("timestamps", data=np.array([s[0] for s in spikes], dtype=np.float64))
        ts.attrs["units"] = "ms"
        sp.create_dataset("node_ids", data=np.array([s[1] for s in spikes], dtype=np.uint64))
    os.replace(tmp, path)
    return len(spikes)


def main(argv):
    ap = argparse.ArgumentParser(description="Run an arbolito geometry dump in NEURON (the validation reference).")
    ap.add_argument("geometry", help="JSON written by `arbolito info --geometry`")
    ap.add_argument("out", help="SONATA HDF5 output (written to OUT.partial, then renamed)")
    ap.add_argument("--timings", action="store_true", help="print timings as JSON on the last line")
    ap.add_argument("--float64", action="store_true", help="store voltages as float64 (not SONATA-conformant)")
    ap.add_argument("--exact-cylinders", action="store_true",
                    help="build 2-point constant-diameter sections with L/diam (double) instead of float32 pt3d")
    ap.add_argument("--fadvance", action="store_true", help="step with a Python fadvance loop instead of psolve")
    ap.add_argument("--mechanisms", metavar="LIB", help="compiled .mod files (libnrnmech.so) to load")
    ap.add_argument("--cache-efficient", action="store_true",
                    help="CVode.cache_efficient(1): contiguous node data (faster; NEURON's default is off)")
    args = ap.parse_args(argv)

    try:
        with open(args.geometry) as fh:
            dump = json.load(fh)
    except (OSError, ValueError) as e:
        print("run_neuron.py: cannot read %s: %s" % (args.geometry, e), file=sys.stderr)
        return 1

    from neuron import h
    t0 = time.perf_counter()
    h.load_file("stdrun.hoc")  # defines h.cvode, steps_per_ms
    h.cvode.active(0)
    try:
        model_dt = float(dump["run"]["dt"])
        h.dt = model_dt
        h.steps_per_ms = 1.0 / model_dt
        h.secondorder = 0
        h.celsius = float(dump["run"]["celsius"])
        if args.mechanisms:
            h.nrn_load_dll(args.mechanisms)
        model = Model(h, dump, exact_cylinders=args.exact_cylinders, loaded_mechanisms=bool(args.mechanisms))
    except (DumpError, KeyError, TypeError, ValueError) as e:
        print("run_neuron.py: %s: %s" % (args.geometry, e), file=sys.stderr)
        return 1
    h.usetable_hh = 0  # hh computes its rates exactly (no interpolation tables)
    if model.event_rules != "neuron":
        print("run_neuron.py: note: the dump asks for event_rules %r; NEURON always uses its own "
              "(event <= t + dt/2, spikes at step ends): network spike times may differ" % model.event_rules,
              file=sys.stderr)
    h.dt = model.dt  # stdrun may not touch dt, but make sure nothing else did
    if args.cache_efficient:
        h.cvode.cache_efficient(1)
    model.initialize()
    t1 = time.perf_counter()
    model.run(args.fadvance)
    t2 = time.perf_counter()
    n_spikes = write_sonata(model, args.out, float64=args.float64)
    t3 = time.perf_counter()
    if args.timings:
        print(json.dumps({"setup_s": t1 - t0, "run_s": t2 - t1, "write_s": t3 - t2, "n_nodes": model.n_nodes,
                          "steps": model.steps, "n_cells": len(model.cells), "n_spikes": n_spikes,
                          "cache_efficient": bool(args.cache_efficient)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
