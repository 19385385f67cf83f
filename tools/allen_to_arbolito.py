#!/usr/bin/env python3
"""Convert an Allen Cell Types perisomatic model (fit JSON + SWC) into an arbolito model.

    allen_to_arbolito.py FIT.json CELL.swc OUTDIR --amp NA [--name NAME] [--delay MS] [--dur MS]
                         [--tfinal MS] [--dt MS] [--sample-dt MS] [--passive-only]
                         [--zero-area keep|fold]

Writes OUTDIR/NAME.swc (the morphology with its axon replaced) and OUTDIR/NAME.json (the
model, which names that SWC relative to itself). NAME defaults to the fit's file stem.

The Allen recipe (bmtk's aibs_perisomatic: fix_axon_peri, then set_params_peri) as arbolito
model keys:
  * Axon: every axon sample (SWC type 2) is dropped and two 30 µm x 1 µm stubs are added,
    the first attached at the soma's middle, the second at the first one's end. arbolito
    starts a new branch at a type change, so the second stub has type AXON_STUB_TAG (painted
    like the axon); the stubs' points are integers (exact in float32, as NEURON keeps them).
  * Passive: ra on every section; cm per section type (cell default: the axon's, which
    the second stub takes); pas with e_pas everywhere and g_pas per section type.
  * Genome: one paint per (section type, mechanism) with its parameters ("gbar_NaTs" is
    parameter gbar of NaTs).
  * Reversal potentials: conditions.erev as the cell's "ions" (docs of the ion keys).
  * celsius and v_init from conditions; CVs by odd_per_length 40 (nseg = 1 + 2*int(L/40)
    per section, the AllenSDK rule; the stubs get 1 each); SWC coordinates rounded to
    float32 as NEURON stores them (neuron_float32).
  * A square current step into the soma (iclamp delay/dur/amp), a spike detector at
    -15 mV on the soma (the parvalbumin cell's spikes peak below 0 mV; bmtk uses -15) and
    a probe of the soma's voltage.
--passive-only leaves out the genome's mechanisms and the ions (the geometry and passive
properties alone: what `arbolito info --geometry` needs, on any build).
--zero-area sets the discretisation's "zero_area" (default keep: NEURON's nodes; fold drops
the zero-area nodes at tips and joints of one child, exactly: README's model keys).
Exit status 0; 2 with one line naming the file and the reason for bad input.
"""
import argparse
import json
import os
import sys

AXON_STUB_TAG = 7       # SWC type of the second axon stub (a type change starts a branch)
STUB_LENGTH = 30.0      # µm, bmtk's fix_axon_peri
STUB_DIAM = 1.0         # µm
NSEG_LENGTH = 40.0      # µm: nseg = 1 + 2*int(L/40)
THRESHOLD = -15.0       # mV
SECTION_TAGS = {"soma": 1, "axon": 2, "dend": 3, "apic": 4}
NEURON_DEFAULT_CM = 1.0       # µF/cm², a section's cm unless set
NEURON_DEFAULT_G_PAS = 0.001  # S/cm², pas's g unless set


class BadInput(Exception):
    pass


def load_fit(path):
    try:
        with open(path) as f:
            fit = json.load(f)
    except (OSError, ValueError) as e:
        raise BadInput("%s: cannot read: %s" % (path, e))

    def one(key):
        v = fit.get(key)
        if not isinstance(v, list) or len(v) != 1 or not isinstance(v[0], dict):
            raise BadInput("%s: '%s' must be a list of one object" % (path, key))
        return v[0]
    passive, cond = one("passive"), one("conditions")
    genome = fit.get("genome")
    if not isinstance(genome, list):
        raise BadInput("%s: 'genome' must be a list" % path)
    for k, g in enumerate(genome):
        for key in ("section", "name", "value", "mechanism"):
            if key not in g:
                raise BadInput("%s: genome[%d] lacks '%s'" % (path, k, key))
        if g["section"] not in SECTION_TAGS:
            raise BadInput("%s: genome[%d].section '%s' is not soma, axon, dend or apic" % (path, k, g["section"]))
    for c in passive.get("cm", []):
        if c.get("section") not in SECTION_TAGS:
            raise BadInput("%s: passive.cm section %r is not soma, axon, dend or apic" % (path, c.get("section")))
    for e in cond.get("erev", []):
        if e.get("section") not in SECTION_TAGS:
            raise BadInput("%s: conditions.erev section %r is not soma, axon, dend or apic" % (path, e.get("section")))
    return passive, cond, genome


def mechanism_param(g, path):
    """('NaTs', 'gbar') for gbar_NaTs; ('pas', 'g') for g_pas with no mechanism."""
    mech = g["mechanism"] or "pas"
    suffix = "_" + mech
    if not g["name"].endswith(suffix) or len(g["name"]) == len(suffix):
        raise BadInput("%s: genome entry '%s' is not a parameter of '%s' (NAME_%s)" % (path, g["name"], mech, mech))
    return mech, g["name"][: -len(suffix)]


def read_swc(path):
    samples = []
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise BadInput("%s: cannot read: %s" % (path, e))
    for n, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        cols = text.split()
        if len(cols) != 7:
            raise BadInput("%s:line %d: expected 7 columns" % (path, n))
        try:
            samples.append((int(cols[0]), int(cols[1]), float(cols[2]), float(cols[3]), float(cols[4]),
                            float(cols[5]), int(cols[6]), n))
        except ValueError:
            raise BadInput("%s:line %d: not numbers" % (path, n))
    return samples


def replace_axon(samples, path):
    """The samples without the axon, plus the two stubs; and the SWC types present."""
    by_id = {s[0]: s for s in samples}
    soma = [s for s in samples if s[1] == 1]
    roots = [s for s in samples if s[6] == -1]
    if len(roots) != 1 or roots[0][1] != 1:
        raise BadInput("%s: the root must be a soma sample (type 1)" % path)
    for s in samples:
        if s[1] != 2 and s[6] in by_id and by_id[s[6]][1] == 2:
            raise BadInput("%s:line %d: a type-%d sample on the axon: the axon cannot be replaced" % (path, s[7], s[1]))
    kept = [s for s in samples if s[1] != 2]
    root = roots[0]
    # The stubs along -z from an integer point near the soma: lengths exactly 30 µm.
    x0, y0, z0 = round(root[2]), round(root[3]), round(root[4] - root[5] - 10.0)
    nid = max(s[0] for s in samples) + 1
    r = STUB_DIAM / 2
    kept += [(nid, 2, x0, y0, z0, r, root[0], 0),
             (nid + 1, 2, x0, y0, z0 - STUB_LENGTH, r, nid, 0),
             (nid + 2, AXON_STUB_TAG, x0, y0, z0 - 2 * STUB_LENGTH, r, nid + 1, 0)]
    if not soma:
        raise BadInput("%s: no soma sample" % path)
    return kept, sorted({s[1] for s in kept})


def write_swc(samples, src, out):
    with open(out + ".partial", "w") as f:
        f.write("# %s with its axon replaced by two %g um x %g um stubs (Allen perisomatic recipe);\n"
                "# the second stub has type %d. Written by tools/allen_to_arbolito.py.\n"
                % (os.path.basename(src), STUB_LENGTH, STUB_DIAM, AXON_STUB_TAG))
        for s in samples:
            f.write("%d %d %r %r %r %r %d\n" % s[:7])
    os.replace(out + ".partial", out)


def build_model(passive, cond, genome, types, swc_name, args, fit_path):
    tags = {name: t for name, t in SECTION_TAGS.items() if t in types}
    cm_of = {c["section"]: float(c["cm"]) for c in passive.get("cm", [])}
    # The second stub takes the cell's defaults: the axon's values.
    cell = {
        "morphology": {"swc": swc_name, "neuron_float32": True},
        "discretization": {"policy": "odd_per_length", "length": NSEG_LENGTH, "zero_area": args.zero_area},
        "v_init": float(cond["v_init"]),
        "ra": float(passive["ra"]),
        "cm": cm_of.get("axon", NEURON_DEFAULT_CM),
        "regions": {name: {"cm": cm_of.get(name, NEURON_DEFAULT_CM)} for name in tags},
    }
    g_pas = {}
    mechs = {}  # (section, mechanism) -> params, in the genome's order
    for g in genome:
        mech, param = mechanism_param(g, fit_path)
        if mech == "pas":
            if param != "g":
                raise BadInput("%s: genome entry '%s': only g_pas is set per section (e_pas is passive.e_pas)"
                               % (fit_path, g["name"]))
            g_pas[g["section"]] = float(g["value"])
        elif not args.passive_only:
            mechs.setdefault((g["section"], mech), {})[param] = float(g["value"])
    paint = []

    def regions_of(section):  # the arbolito regions of an Allen section type
        return [section, AXON_STUB_TAG] if section == "axon" else [section]
    for name in tags:
        for reg in regions_of(name):
            paint.append({"region": reg, "mechanism": "pas",
                          "params": {"g": g_pas.get(name, NEURON_DEFAULT_G_PAS), "e": float(passive["e_pas"])}})
    for (section, mech), params in mechs.items():
        if section not in tags:
            continue  # the morphology has no such section (as NEURON's forsec finds none)
        for reg in regions_of(section):
            paint.append({"region": reg, "mechanism": mech, "params": params})
    cell["paint"] = paint
    if not args.passive_only:
        ions = []
        for e in cond.get("erev", []):
            if e["section"] not in tags:
                continue
            for ion in ("na", "k"):
                if "e" + ion in e:
                    for reg in regions_of(e["section"]):
                        ions.append({"ion": ion, "region": reg, "e": float(e["e" + ion])})
        cell["ions"] = ions
    cell["place"] = [{"location": "soma", "mechanism": "iclamp",
                      "params": {"delay": args.delay, "dur": args.dur, "amp": args.amp}}]
    cell["detectors"] = [{"location": "soma", "threshold": THRESHOLD}]
    cell["probes"] = [{"location": "soma"}] + [{"location": "soma", "variable": var} for var in args.probe]
    return {"run": {"dt": args.dt, "tfinal": args.tfinal, "sample_dt": args.sample_dt,
                    "celsius": float(cond["celsius"]), "event_rules": "neuron"},
            "cells": [cell]}


def main(argv):
    ap = argparse.ArgumentParser(description="Allen perisomatic model (fit JSON + SWC) -> arbolito model")
    ap.add_argument("fit")
    ap.add_argument("swc")
    ap.add_argument("outdir")
    ap.add_argument("--amp", type=float, required=True, help="step current, nA")
    ap.add_argument("--name", help="output file stem (default: the fit's stem)")
    ap.add_argument("--delay", type=float, default=100.0, help="step onset, ms")
    ap.add_argument("--dur", type=float, default=800.0, help="step duration, ms")
    ap.add_argument("--tfinal", type=float, default=1000.0)
    ap.add_argument("--dt", type=float, default=0.025)
    ap.add_argument("--sample-dt", type=float, default=0.1)
    ap.add_argument("--passive-only", action="store_true", help="leave out the genome's mechanisms and the ions")
    ap.add_argument("--probe", action="append", default=[], metavar="VARIABLE",
                    help="another soma probe after v (e.g. NaTs.ina), in the order given")
    ap.add_argument("--zero-area", choices=("keep", "fold"), default="keep",
                    help="the discretisation's zero_area: keep NEURON's zero-area nodes or fold them (exact)")
    args = ap.parse_args(argv)
    name = args.name or os.path.splitext(os.path.basename(args.fit))[0].replace("_fit", "")
    try:
        passive, cond, genome = load_fit(args.fit)
        samples, types = replace_axon(read_swc(args.swc), args.swc)
        model = build_model(passive, cond, genome, types, name + ".swc", args, args.fit)
    except BadInput as e:
        print("allen_to_arbolito.py: %s" % e, file=sys.stderr)
        return 2
    except KeyError as e:
        print("allen_to_arbolito.py: %s: missing key %s" % (args.fit, e), file=sys.stderr)
        return 2
    except (TypeError, ValueError) as e:
        print("allen_to_arbolito.py: %s: a value of the wrong type: %s" % (args.fit, e), file=sys.stderr)
        return 2
    os.makedirs(args.outdir, exist_ok=True)
    write_swc(samples, args.swc, os.path.join(args.outdir, name + ".swc"))
    out = os.path.join(args.outdir, name + ".json")
    with open(out + ".partial", "w") as f:
        json.dump(model, f, indent=1)
        f.write("\n")
    os.replace(out + ".partial", out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
