#!/usr/bin/python3
"""NEURON side of the Allen validation (tools/validate_allen.sh): the reference runs.

    allen_neuron.py mechs MODDIR BUILDDIR
        compile MODDIR/*.mod with Debian's nrnivmodl into BUILDDIR/x86_64/libnrnmech.so
        (Debian 12's script looks for /usr/bin/nrnmech_makefile; the package installs it
        in /usr/lib/nrn, with libnrniv.so: a copy of the script is pointed there, and
        only the shared library is made: Python loads it, `special` is not needed).
    allen_neuron.py run LIB FIT GEOM.json OUT.json [--amp NA] [--passive-only]
        the cell of arbolito's geometry dump (docs/geometry-dump.md) with the fit's
        biophysics, run with the dump's stimulus and run settings
    allen_neuron.py direct LIB FIT SWC OUT.json --amp NA [--passive-only] [--like GEOM.json]
        the cell built by the Allen recipe itself (Import3d, fix_axon, nseg rule), run the same
        way; --like takes the run settings (dt, tfinal, sample_dt, stimulus) from a dump
    allen_neuron.py rheobase LIB FIT GEOM.json [--tol NA]
        the smallest step amplitude that makes the dump's cell fire (bisection), as JSON

LIB is the compiled mechanisms (libnrnmech.so). OUT.json holds {"spikes": [ms...],
"sample_dt": ms, "v": [mV per sample from t = 0], "nseg": [...], "L": [...]}.

The biophysics are always the fit's, applied as bmtk's set_params_peri does (Ra, cm per
section type, pas with e_pas, genome entries per section type, ena/ek per conditions.erev,
celsius, v_init): the geometry dump gives only sections, points, nseg and section types
(tags 1 soma, 2 and 7 axon, 3 dend, 4 apic; 7 is the converter's second axon stub). What the
dump says of ra, cm and mechanisms is checked against the fit (a converter error is an
error here, not a silent difference).

Numerics as tests/neuron/run_neuron.py: fixed step, implicit Euler (secondorder 0), psolve;
spikes by NetCon on the soma's v (threshold from the dump, -15 mV for these models), times
at the end of the step that crossed, + 1e-10 ms.
"""
import argparse
import glob
import json
import math
import os
import shutil
import subprocess
import sys

TYPE_OF_TAG = {1: "soma", 2: "axon", 7: "axon", 3: "dend", 4: "apic"}
NSEG_LENGTH = 40.0
THRESHOLD = -15.0


class Bad(Exception):
    pass


# ------------------------------------------------------------------------------- mechanisms
def compile_mechs(moddir, builddir):
    src = shutil.which("nrnivmodl")
    if not src:
        raise Bad("nrnivmodl not found (Debian package neuron-dev)")
    moddir = os.path.abspath(moddir)
    mods = sorted(glob.glob(os.path.join(moddir, "*.mod")))
    if not mods:
        raise Bad("%s: no .mod files" % moddir)
    os.makedirs(builddir, exist_ok=True)
    with open(src) as f:
        script = f.read()
    make = 'make -j 4 -f "${bindir}/nrnmech_makefile"'
    if make not in script or '" special &&' not in script:
        raise Bad("%s: not the nrnivmodl this script knows (NEURON 8.2's)" % src)
    script = script.replace(make, 'make -j 2 -f /usr/lib/nrn/nrnmech_makefile libdir=/usr/lib/nrn')
    script = script.replace('" special &&', '" mech_lib_shared &&')
    local = os.path.join(builddir, "nrnivmodl_debian")
    with open(local, "w") as f:
        f.write(script)
    log = os.path.join(builddir, "nrnivmodl.log")
    with open(log, "w") as lf:
        rc = subprocess.call(["bash", local] + mods, cwd=builddir, stdout=lf, stderr=subprocess.STDOUT)
    lib = os.path.join(builddir, "x86_64", "libnrnmech.so")
    if rc != 0 or not os.path.exists(lib):
        raise Bad("nrnivmodl failed (exit %d); see %s" % (rc, log))
    return lib


def neuron_with(lib):
    from neuron import h
    h.load_file("stdrun.hoc")
    h.load_file("import3d.hoc")
    if not os.path.exists(lib):
        raise Bad("%s: no such mechanism library" % lib)
    h.nrn_load_dll(lib)
    return h


# ---------------------------------------------------------------------------- biophysics
def load_fit(path):
    with open(path) as f:
        fit = json.load(f)
    return fit["passive"][0], fit["conditions"][0], fit["genome"]


def set_params_peri(h, by_type, fit, passive_only):
    """bmtk's set_params_peri on sections grouped by Allen type ({"soma": [sec...], ...})."""
    passive, cond, genome = fit
    every = [s for secs in by_type.values() for s in secs]
    for sec in every:
        sec.Ra = passive["ra"]
        sec.insert("pas")
    for c in passive["cm"]:
        for sec in by_type.get(c["section"], []):
            sec.cm = c["cm"]
    for sec in every:
        for seg in sec:
            seg.e_pas = passive["e_pas"]
    for g in genome:
        if passive_only and g["mechanism"]:
            continue
        for sec in by_type.get(g["section"], []):
            if g["mechanism"]:
                sec.insert(g["mechanism"])
            setattr(sec, g["name"], g["value"])
    if not passive_only:
        for e in cond["erev"]:
            for sec in by_type.get(e["section"], []):
                sec.ena = e["ena"]
                sec.ek = e["ek"]


def expected_mechanisms(fit, allen_type, passive_only):
    """What the converter should have painted on a section of this type: {mech: {param: v}}."""
    passive, _, genome = fit
    out = {"pas": {"e": passive["e_pas"], "g": 0.001}}
    for g in genome:
        if g["section"] != allen_type or (passive_only and g["mechanism"]):
            continue
        mech = g["mechanism"] or "pas"
        out.setdefault(mech, {})[g["name"][: -len(mech) - 1]] = g["value"]
    return out


def check_dump_section(sec_json, fit, allen_type, passive_only, where):
    passive = fit[0]
    cm = {c["section"]: c["cm"] for c in passive["cm"]}.get(allen_type, 1.0)
    close = lambda a, b: abs(a - b) <= 1e-12 * max(1.0, abs(b))  # noqa: E731
    if not close(sec_json["ra"], passive["ra"]) or not close(sec_json["cm"], cm):
        raise Bad("%s: ra %r, cm %r in the dump; the fit says %r, %r" % (where, sec_json["ra"], sec_json["cm"], passive["ra"], cm))
    want = expected_mechanisms(fit, allen_type, passive_only)
    got = sec_json.get("mechanisms", {})
    if sorted(got) != sorted(want):
        raise Bad("%s (%s): mechanisms %s in the dump; the fit gives %s" % (where, allen_type, sorted(got), sorted(want)))
    for mech, params in want.items():
        for p, v in params.items():
            if p not in got[mech] or not close(got[mech][p], v):
                raise Bad("%s (%s): %s.%s is %r in the dump; the fit gives %r" % (where, allen_type, mech, p, got[mech].get(p), v))


# ------------------------------------------------------------------------------ geometry
class Cell:
    """Sections grouped by Allen type, the soma section and the node that is the soma."""

    def __init__(self):
        self.by_type = {}
        self.keep = []
        self.soma = None
        self.soma_x = 0.5


def section_from_dump(h, s, name, secs):
    """A NEURON section from a geometry dump's section S (its pt3d points, nseg), connected
    at parent_x to secs[parent] when it has a parent."""
    sec = h.Section(name=name)
    sec.pt3dclear()
    for x, y, z, d in s["pt3d"]:
        sec.pt3dadd(x, y, z, d)
    if s["parent"] >= 0:
        sec.connect(secs[s["parent"]](s["parent_x"]), 0)
    sec.nseg = int(s["nseg"])
    return sec


def cell_from_dump(h, dump, fit, passive_only, dump_passive=False):
    if dump.get("format") != "arbolito-geometry-1":
        raise Bad("not an arbolito geometry dump")
    cells = dump["cells"]
    if len(cells) != 1:
        raise Bad("the dump has %d cells, expected 1" % len(cells))
    cj = cells[0]
    cell = Cell()
    secs = []
    for k, s in enumerate(cj["sections"]):
        if "tag" not in s:
            raise Bad("sections[%d]: no 'tag' (a dump of an older arbolito)" % k)
        if s["tag"] not in TYPE_OF_TAG:
            raise Bad("sections[%d]: tag %r is no Allen section type" % (k, s["tag"]))
        allen_type = TYPE_OF_TAG[s["tag"]]
        check_dump_section(s, fit, allen_type, passive_only or dump_passive, "sections[%d]" % k)
        sec = section_from_dump(h, s, "%s_%d" % (allen_type, k), secs)
        secs.append(sec)
        cell.by_type.setdefault(allen_type, []).append(sec)
    cell.keep = secs
    det = cj["detectors"]
    if len(det) != 1 or not cj["probes"]:
        raise Bad("expected one detector and the soma's probes")
    if any((p["section"], p["x"]) != (det[0]["section"], det[0]["x"]) for p in cj["probes"]):
        raise Bad("the detector and a probe are on different nodes")
    stims = [p for p in cj["point_processes"] if p["kind"] == "iclamp"]
    if len(stims) != 1 or (stims[0]["section"], stims[0]["x"]) != (det[0]["section"], det[0]["x"]):
        raise Bad("expected one iclamp, on the detector's node (the soma's)")
    cell.soma, cell.soma_x = secs[det[0]["section"]], det[0]["x"]
    cell.threshold = det[0]["threshold"]
    set_params_peri(h, cell.by_type, fit, passive_only)
    return cell


ALLEN_TEMPLATE = """
begintemplate AllenRecipeCell
public init, soma, dend, apic, axon, all, somatic, axonal, basal, apical
create soma[1], dend[1], apic[1], axon[1]
objref all, somatic, axonal, basal, apical
proc init() {
    all = new SectionList()
    somatic = new SectionList()
    axonal = new SectionList()
    basal = new SectionList()
    apical = new SectionList()
}
endtemplate AllenRecipeCell
"""


def cell_by_recipe(h, swc, fit, passive_only):
    """Import3d of the SWC, bmtk's fix_axon_peri, nseg = 1 + 2*int(L/40), set_params_peri."""
    if not hasattr(h, "AllenRecipeCell"):
        h(ALLEN_TEMPLATE)
    obj = h.AllenRecipeCell()
    reader = h.Import3d_SWC_read()
    reader.quiet = 1
    reader.input(swc)
    gui = h.Import3d_GUI(reader, 0)
    gui.instantiate(obj)
    for sec in list(obj.axonal):
        h.delete_section(sec=sec)
    h.execute("create axon[2]", obj)
    for sec in obj.axon:
        sec.L = 30
        sec.diam = 1
        obj.axonal.append(sec=sec)
        obj.all.append(sec=sec)
    obj.axon[0].connect(obj.soma[0](0.5), 0)
    obj.axon[1].connect(obj.axon[0](1), 0)
    h.define_shape()
    cell = Cell()
    cell.keep = [obj]
    for sec in obj.all:
        # The template's placeholder of a type the SWC lacks (Pvalb's apic[0]) stays, unconnected.
        if h.SectionRef(sec=sec).root != obj.soma[0]:
            continue
        sec.nseg = 1 + 2 * int(sec.L / NSEG_LENGTH)
        cell.by_type.setdefault(sec.name().split(".")[1][:4], []).append(sec)
    cell.soma, cell.soma_x = obj.soma[0], 0.5
    cell.threshold = THRESHOLD
    set_params_peri(h, cell.by_type, fit, passive_only)
    return cell


# ----------------------------------------------------------------------------------- run
class Protocol:
    def __init__(self, dump, amp=None):
        run = dump["run"]
        self.dt, self.tfinal, self.sample_dt, self.celsius = run["dt"], run["tfinal"], run["sample_dt"], run["celsius"]
        self.v_init = dump["cells"][0]["v_init"]
        pps = [p for p in dump["cells"][0]["point_processes"] if p["kind"] == "iclamp"]
        if len(pps) != 1:
            raise Bad("expected one iclamp in the dump")
        self.delay, self.dur = pps[0]["params"]["delay"], pps[0]["params"]["dur"]
        self.amp = pps[0]["params"]["amp"] if amp is None else amp
        self.stim_at = (pps[0]["section"], pps[0]["x"])


def simulate(h, cell, proto, amp=None, stop_at_spike=False, records=()):
    """(spike times, soma v every sample_dt from t = 0, the soma's `records` (range variables
    such as ina_NaTs) likewise) of one run."""
    h.cvode.active(0)
    h.secondorder = 0
    h.dt = proto.dt
    h.steps_per_ms = 1.0 / proto.dt
    h.celsius = proto.celsius
    stim = h.IClamp(cell.soma(cell.soma_x))
    stim.delay, stim.dur, stim.amp = proto.delay, proto.dur, proto.amp if amp is None else amp
    nc = h.NetCon(cell.soma(cell.soma_x)._ref_v, None, sec=cell.soma)
    nc.threshold = cell.threshold
    spikes = h.Vector()
    nc.record(spikes)
    v = h.Vector()
    v.record(cell.soma(cell.soma_x)._ref_v, proto.sample_dt)
    recorded = []
    for name in records:
        r = h.Vector()
        r.record(getattr(cell.soma(cell.soma_x), "_ref_" + name), proto.sample_dt)
        recorded.append(r)
    h.finitialize(proto.v_init)
    pc = h.ParallelContext()
    pc.set_maxstep(10.0)
    if stop_at_spike:  # rheobase: one spike is the answer; run in chunks
        t = 0.0
        while t < proto.tfinal - proto.dt / 2 and len(spikes) == 0:
            t = min(proto.tfinal, t + 50.0)
            pc.psolve(t)
    else:
        pc.psolve(proto.tfinal)
    n = int(math.ceil(proto.tfinal / proto.sample_dt - 1e-9))
    return list(spikes), list(v)[:n], {name: list(r)[:n] for name, r in zip(records, recorded)}


def write_result(path, cell, spikes, v, proto, records=None):
    secs = [s for secs in cell.by_type.values() for s in secs]
    out = {"spikes": spikes, "sample_dt": proto.sample_dt, "v": v, "records": records or {}, "amp": proto.amp,
           "nseg": sorted(s.nseg for s in secs), "L": sorted(s.L for s in secs),
           "area": sum(seg.area() for s in secs for seg in s)}
    with open(path + ".partial", "w") as f:
        json.dump(out, f)
    os.replace(path + ".partial", path)


def rheobase(h, cell, proto, tol):
    lo, hi = 0.0, 0.05
    while not simulate(h, cell, proto, hi, stop_at_spike=True)[0]:
        lo, hi = hi, hi * 2
        if hi > 20:
            raise Bad("no spike up to 20 nA")
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if simulate(h, cell, proto, mid, stop_at_spike=True)[0]:
            hi = mid
        else:
            lo = mid
    return lo, hi


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("mechs")
    m.add_argument("moddir")
    m.add_argument("builddir")
    for name in ("run", "direct", "rheobase"):
        p = sub.add_parser(name)
        p.add_argument("lib")
        p.add_argument("fit")
        if name == "direct":
            p.add_argument("swc")
            p.add_argument("out")
            p.add_argument("--like", required=True, help="geometry dump whose run settings and stimulus to use")
        else:
            p.add_argument("geom")
        if name == "run":
            p.add_argument("out")
        if name == "rheobase":
            p.add_argument("--tol", type=float, default=0.001, help="nA")
        else:
            p.add_argument("--amp", type=float, help="nA (default: the dump's)")
        p.add_argument("--passive-only", action="store_true", help="the fit's passive properties alone")
        p.add_argument("--record", action="append", default=[], metavar="RANGEVAR",
                       help="a soma range variable to record beside v (e.g. ina_NaTs), into the result's records")
        p.add_argument("--dump-passive", action="store_true",
                       help="the dump is of allen_to_arbolito.py --passive-only: check only its passive properties")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "mechs":
            print(compile_mechs(a.moddir, a.builddir))
            return 0
        h = neuron_with(a.lib)
        fit = load_fit(a.fit)
        with open(a.like if a.cmd == "direct" else a.geom) as f:
            dump = json.load(f)
        proto = Protocol(dump, None if a.cmd == "rheobase" else a.amp)
        if a.cmd == "direct":
            cell = cell_by_recipe(h, a.swc, fit, a.passive_only)
        else:
            cell = cell_from_dump(h, dump, fit, a.passive_only, a.dump_passive)
        if a.cmd == "rheobase":
            lo, hi = rheobase(h, cell, proto, a.tol)
            print(json.dumps({"below": lo, "above": hi}))
            return 0
        spikes, v, records = simulate(h, cell, proto, records=a.record)
        write_result(a.out, cell, spikes, v, proto, records)
        return 0
    except (Bad, OSError, KeyError, ValueError) as e:
        print("allen_neuron.py: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
