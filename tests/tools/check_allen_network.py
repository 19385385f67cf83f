#!/usr/bin/python3
"""tools/allen_network.py on a small network, read back by arbolito.

    check_allen_network.py ARBOLITO WORKDIR

Checks: the same arguments write the same bytes; the description's blocks, connections
(in-degree, distinct sources other than the target, delays in range, weights and delays
exact float32) and synapse sites (CV nodes of soma and dendrite sections); the arbolito
model's cell counts, connections and Poisson seeds match the description; every Poisson
train that bench/allen_network_peers.py draws equals, bit for bit, the times arbolito's
geometry dump expands from the model; a bad argument is refused with exit status 2, one
line, and no output. Exit status 0 when all hold; 1 with the failed check on stderr; 77
when ../shared/models/allen is missing or ARBOLITO lacks the Allen channels.
"""
import json
import os
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
TOOL = os.path.join(ROOT, "tools", "allen_network.py")
ALLEN = os.path.join(os.path.dirname(ROOT), "shared", "models", "allen")
sys.path.insert(0, os.path.join(ROOT, "bench"))
import allen_network_peers as peers  # noqa: E402

ARGS = ["--cells", "6", "--tfinal", "200", "--synapses", "4", "--in-degree", "3", "--seed", "7", "--rate", "80"]


def fail(what):
    print("FAIL: " + what, file=sys.stderr)
    sys.exit(1)


def is_f32(x):
    return struct.unpack("f", struct.pack("f", x))[0] == x


def generate(arbolito, out, args):
    return subprocess.run([sys.executable, TOOL, arbolito, out, "--allen", ALLEN] + args,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def main(arbolito, work):
    if not os.path.isdir(os.path.join(ALLEN, "fits")):
        print("SKIP: no Allen models in %s" % ALLEN)
        return 77
    shutil.rmtree(work, ignore_errors=True)
    a, b = os.path.join(work, "a"), os.path.join(work, "b")
    r = generate(arbolito, a, ARGS)
    if r.returncode != 0:
        if "Allen channels" in r.stderr:
            print("SKIP: %s has no Allen channels (-DARBOLITO_MECHANISMS)" % arbolito)
            return 77
        fail("allen_network.py exit %d: %s" % (r.returncode, r.stderr.strip()))
    if generate(arbolito, b, ARGS).returncode != 0:
        fail("second run failed")
    for name in ("network.json", "network.desc.json"):
        with open(os.path.join(a, name), "rb") as f, open(os.path.join(b, name), "rb") as g:
            if f.read() != g.read():
                fail("%s differs between two runs with the same arguments" % name)

    with open(os.path.join(a, "network.desc.json")) as f:
        desc = json.load(f)
    with open(os.path.join(a, "network.json")) as f:
        model = json.load(f)
    # Blocks: 6 cells -> 2, 2, 1, 1.
    if [x["count"] for x in desc["fits"]] != [2, 2, 1, 1] or [x["first_gid"] for x in desc["fits"]] != [0, 2, 4, 5]:
        fail("blocks %s" % [(x["first_gid"], x["count"]) for x in desc["fits"]])
    if [c["count"] for c in model["cells"]] != [2, 2, 1, 1]:
        fail("model cell counts %s" % [c["count"] for c in model["cells"]])
    # Synapse sites: CV nodes of soma/dendrite sections, the same in the model.
    for fit, cell in zip(desc["fits"], model["cells"]):
        with open(os.path.join(a, fit["geometry"])) as f:
            secs = json.load(f)["cells"][0]["sections"]
        for s in fit["synapses"]:
            sec = secs[s["section"]]
            k = s["x"] * sec["nseg"] - 0.5
            if sec["tag"] not in (1, 3, 4) or abs(k - round(k)) > 1e-12:
                fail("fit %s: synapse %s is not at a soma/dendrite node" % (fit["name"], s))
        placed = [(p["location"]["branch"], p["location"]["x"]) for p in cell["place"] if p["mechanism"] == "exp2syn"]
        if placed != [(s["section"], s["x"]) for s in fit["synapses"]]:
            fail("fit %s: the model's synapses are not the description's" % fit["name"])
    # Connections: in-degree 3 from distinct other cells, float32 weights and delays in range.
    col = desc["connections"]
    conns = list(zip(col["source"], col["target"], col["synapse"], col["weight"], col["delay"]))
    for t in range(6):
        src = [c[0] for c in conns if c[1] == t]
        if len(src) != 3 or len(set(src)) != 3 or t in src:
            fail("cell %d receives from %s" % (t, src))
    for s, t, k, w, d in conns:
        if not (0 <= k < 4 and is_f32(w) and is_f32(d) and 5.0 <= d <= 10.0):
            fail("connection %s" % ((s, t, k, w, d),))
    mc = [(c["source"], c["target"], c["synapse"], c["weight"], c["delay"]) for c in model["connections"]]
    if mc != conns:
        fail("the model's connections are not the description's")
    seeds = [(g["target"], g["synapse"], g["seed"]) for g in model["generators"]]
    if seeds != [(g, k, peers.seed_of(desc, g, k)) for g in range(6) for k in range(4)]:
        fail("Poisson seeds")
    if not is_f32(desc["poisson"]["weight"]) or any(g["weight"] != desc["poisson"]["weight"] for g in model["generators"]):
        fail("Poisson weights")

    # The Python port of the Poisson trains against arbolito's own expansion.
    geom = os.path.join(work, "network.geom.json")
    r = subprocess.run([arbolito, "info", os.path.join(a, "network.json"), "--geometry", geom, "--log-level", "warn"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        fail("arbolito info: %s" % r.stderr.strip())
    with open(geom) as f:
        dumped = json.load(f)["generators"]
    events = 0
    for g in dumped:
        want = [x for x in g["times"] if x < desc["run"]["tfinal"]]
        got = peers.poisson_times(peers.seed_of(desc, g["target"], g["synapse"]), desc["poisson"]["rate_hz"],
                                  desc["poisson"]["start"], desc["poisson"]["stop"])
        if got != want:
            fail("Poisson train of cell %d synapse %d: the port differs from arbolito's" % (g["target"], g["synapse"]))
        events += len(want)
    if len(dumped) != 24 or events < 300:  # 24 trains of 80 Hz x 200 ms: about 384 events
        fail("%d trains, %d events" % (len(dumped), events))

    # Bad input: exit 2, one line, nothing written.
    bad = os.path.join(work, "bad")
    for args, key in ((["--cells", "0"], "--cells"), (["--max-delay", "1"], "--max-delay"), (["--seed", "-1"], "--seed")):
        r = generate(arbolito, bad, args)
        if r.returncode != 2 or len(r.stderr.strip().splitlines()) != 1 or key not in r.stderr \
                or os.path.exists(os.path.join(bad, "network.json")):
            fail("%s: exit %d, %r" % (args, r.returncode, r.stderr))
    # The same bits at every lane width and thread count: the 6 cells' spikes and soma traces
    # of one lane against 2 and 4 lanes and 2 threads (translated channels, ions, Poisson input).
    runs = {}
    for solver, threads in (("cpu:lanes=1", "1"), ("cpu:lanes=2", "1"), ("cpu:lanes=4", "1"), ("omp:lanes=2", "2")):
        h5 = os.path.join(work, "lanes_%s.h5" % solver.replace(":", "_").replace("=", ""))
        r = subprocess.run([arbolito, "run", os.path.join(a, "network.json"), "--solver", solver, "--threads", threads,
                            "-o", h5, "--log-level", "warn"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            fail("run %s: exit %d, %s" % (solver, r.returncode, r.stderr.strip()))
        runs[solver] = open(h5, "rb").read()
    for solver, data in runs.items():
        if data != runs["cpu:lanes=1"]:
            fail("%s wrote other bytes than cpu:lanes=1" % solver)
    print("allen_network: all checks hold (%d trains, %d events bit-exact; %d lane widths the same bits)"
          % (len(dumped), events, len(runs)))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: check_allen_network.py ARBOLITO WORKDIR", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
