#!/usr/bin/python3
"""tools/allen_to_arbolito.py on a small hand-made fit and SWC, read back by arbolito.

    check_allen_converter.py ARBOLITO WORKDIR

Checks, on arbolito's geometry dump of the converted passive model: the axon replaced by two
30 µm x 1 µm sections (tags 2 and 7, one CV each, the first at the soma's middle, the second
at the first one's end), nseg = 1 + 2*int(L/40) on every section, cm per section type, pas
with the type's g_pas; in the full model: the genome's paints (the axon's also on tag 7) and
the ions; and that a fit with a missing key is refused with exit status 2 and no output.
Exit status 0 when all hold; 1 with the failed check on stderr.
"""
import json
import math
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CONVERTER = os.path.join(HERE, "..", "..", "tools", "allen_to_arbolito.py")

# Soma at the origin (radius 5); a 100 µm dendrite (two samples), a 50 µm apical dendrite,
# an axon of three samples with a fork (all dropped).
SWC = """# hand-made test cell
1 1 0 0 0 5 -1
2 3 0 -10 0 1 1
3 3 0 -60 0 0.8 2
4 3 0 -110 0 0.6 3
5 4 0 10 0 1.5 1
6 4 0 60 0 1.0 5
7 2 10 0 0 0.5 1
8 2 50 0 0 0.4 7
9 2 60 10 0 0.3 8
10 2 60 -10 0 0.3 8
"""
FIT = {
    "passive": [{"ra": 100.0, "e_pas": -80.0,
                 "cm": [{"section": "soma", "cm": 1.0}, {"section": "axon", "cm": 1.5},
                        {"section": "dend", "cm": 2.0}, {"section": "apic", "cm": 2.5}]}],
    "conditions": [{"celsius": 34.0, "v_init": -80.0,
                    "erev": [{"section": "soma", "ena": 53.0, "ek": -107.0}]}],
    "genome": [
        {"section": "soma", "name": "gbar_NaTs", "mechanism": "NaTs", "value": 0.5},
        {"section": "soma", "name": "gamma_CaDynamics", "mechanism": "CaDynamics", "value": 0.01},
        {"section": "soma", "name": "decay_CaDynamics", "mechanism": "CaDynamics", "value": 100.0},
        {"section": "axon", "name": "gbar_Kv3_1", "mechanism": "Kv3_1", "value": 0.1},
        {"section": "soma", "name": "g_pas", "mechanism": "", "value": 1e-4},
        {"section": "axon", "name": "g_pas", "mechanism": "", "value": 2e-4},
        {"section": "dend", "name": "g_pas", "mechanism": "", "value": 3e-4},
        {"section": "apic", "name": "g_pas", "mechanism": "", "value": 4e-4},
    ],
}


def check(cond, what):
    if not cond:
        print("check_allen_converter.py: FAILED: %s" % what, file=sys.stderr)
        sys.exit(1)


def convert(work, fit_path, swc_path, *extra):
    return subprocess.run([sys.executable, CONVERTER, fit_path, swc_path, work, "--amp", "0.2", "--name", "cell"] +
                          list(extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def length(pts):
    return sum(math.dist(a[:3], b[:3]) for a, b in zip(pts, pts[1:]))


def main(arbolito, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    swc, fit = os.path.join(work, "in.swc"), os.path.join(work, "fit.json")
    with open(swc, "w") as f:
        f.write(SWC)
    with open(fit, "w") as f:
        json.dump(FIT, f)

    # The full model's keys.
    r = convert(os.path.join(work, "full"), fit, swc)
    check(r.returncode == 0, "converter exit %d: %s" % (r.returncode, r.stderr))
    with open(os.path.join(work, "full", "cell.json")) as f:
        cell = json.load(f)["cells"][0]
    paints = {(str(p["region"]), p["mechanism"]): p["params"] for p in cell["paint"]}
    check(paints[("soma", "NaTs")] == {"gbar": 0.5}, "NaTs on the soma: %r" % paints.get(("soma", "NaTs")))
    check(paints[("soma", "CaDynamics")] == {"gamma": 0.01, "decay": 100.0}, "CaDynamics' two parameters")
    check(paints[("axon", "Kv3_1")] == paints[("7", "Kv3_1")] == {"gbar": 0.1}, "Kv3_1 on both axon stubs")
    check(paints[("7", "pas")] == {"g": 2e-4, "e": -80.0}, "pas on the second stub: %r" % paints.get(("7", "pas")))
    check(sorted((i["ion"], i["region"], i["e"]) for i in cell["ions"]) == [("k", "soma", -107.0), ("na", "soma", 53.0)],
          "ions: %r" % cell["ions"])
    check(cell["discretization"] == {"policy": "odd_per_length", "length": 40.0, "zero_area": "keep"}, "discretization")

    # The passive model as arbolito discretises it.
    r = convert(os.path.join(work, "passive"), fit, swc, "--passive-only")
    check(r.returncode == 0, "converter --passive-only exit %d: %s" % (r.returncode, r.stderr))
    model = os.path.join(work, "passive", "cell.json")
    geom = os.path.join(work, "passive", "geom.json")
    r = subprocess.run([arbolito, "info", model, "--geometry", geom, "--log-level", "warn"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(r.returncode == 0, "arbolito info: %s" % r.stderr)
    with open(geom) as f:
        secs = json.load(f)["cells"][0]["sections"]
    tags = [s["tag"] for s in secs]
    check(sorted(tags) == [1, 2, 3, 4, 7], "section tags %r (soma, one dend, one apic, two stubs)" % tags)
    cm = {1: 1.0, 2: 1.5, 7: 1.5, 3: 2.0, 4: 2.5}
    g = {1: 1e-4, 2: 2e-4, 7: 2e-4, 3: 3e-4, 4: 4e-4}
    for k, s in enumerate(secs):
        L = length(s["pt3d"])
        check(s["nseg"] == 1 + 2 * int(L / 40.0), "section %d (tag %d, L %g): nseg %d" % (k, s["tag"], L, s["nseg"]))
        check(s["cm"] == cm[s["tag"]] and s["ra"] == 100.0, "section %d: cm %r ra %r" % (k, s["cm"], s["ra"]))
        check(s["mechanisms"] == {"pas": {"g": g[s["tag"]], "e": -80.0}}, "section %d: %r" % (k, s["mechanisms"]))
    stub1, stub2 = tags.index(2), tags.index(7)
    for k in (stub1, stub2):
        check(abs(length(secs[k]["pt3d"]) - 30.0) < 1e-12 and all(p[3] == 1.0 for p in secs[k]["pt3d"]),
              "stub %d: %r" % (k, secs[k]["pt3d"]))
    check((secs[stub1]["parent"], secs[stub1]["parent_x"]) == (tags.index(1), 0.5), "the first stub on the soma's middle")
    check((secs[stub2]["parent"], secs[stub2]["parent_x"]) == (stub1, 1.0), "the second stub at the first one's end")
    check(secs[tags.index(3)]["nseg"] == 5 and secs[tags.index(4)]["nseg"] == 3, "dend 100 µm: 5 CVs, apic 50 µm: 3")

    # --zero-area fold: the key in the model; fewer CVs, the same NEURON geometry in the dump.
    r = convert(os.path.join(work, "fold"), fit, swc, "--passive-only", "--zero-area", "fold")
    check(r.returncode == 0, "converter --zero-area fold exit %d: %s" % (r.returncode, r.stderr))
    model_fold = os.path.join(work, "fold", "cell.json")
    with open(model_fold) as f:
        check(json.load(f)["cells"][0]["discretization"]["zero_area"] == "fold", "zero_area fold in the model")
    geom_fold = os.path.join(work, "fold", "geom.json")
    cvs = []
    for m, g in ((model, geom), (model_fold, geom_fold)):
        r = subprocess.run([arbolito, "info", m, "--geometry", g, "--log-level", "warn"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        check(r.returncode == 0, "arbolito info: %s" % r.stderr)
        cvs += [int(l.split()[2]) for l in r.stdout.splitlines() if l.split()[:1] == ["0"]]
    with open(geom_fold) as f:
        check(json.load(f)["cells"][0]["sections"] == secs, "the dump of the folded model is NEURON's layout")
    check(len(cvs) == 2 and cvs[1] < cvs[0], "CVs keep, fold: %r" % cvs)

    # A fit without conditions.v_init: exit 2, one line naming the file and key, no output.
    bad = dict(FIT, conditions=[{"celsius": 34.0, "erev": []}])
    with open(fit, "w") as f:
        json.dump(bad, f)
    r = convert(os.path.join(work, "bad"), fit, swc)
    check(r.returncode == 2 and "v_init" in r.stderr and fit in r.stderr and len(r.stderr.strip().splitlines()) == 1,
          "bad fit: exit %d, stderr %r" % (r.returncode, r.stderr))
    check(not os.path.exists(os.path.join(work, "bad")), "no output for a bad fit")
    print("check_allen_converter.py: all checks passed")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
