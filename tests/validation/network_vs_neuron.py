#!/usr/bin/python3
"""Spike trains of a network: arbolito against NEURON on the same model.

    network_vs_neuron.py ARBOLITO MODEL.json [--set KEY=JSON ...] [--workdir DIR]
                         [--tol-steps 2] [--json OUT]

NEURON gets the network only through arbolito's own interpretation of the model:
`arbolito info --geometry` writes cells, synapses, detectors, connections and generator
times (docs/geometry-dump.md) and tests/neuron/run_neuron.py rebuilds them as sections,
ExpSyn, NetCon (threshold, weight, delay) and NetCon.event() for generator times.

arbolito runs twice, with `--event-rules neuron` and `--event-rules arbor`
(docs/event-rules.md). Only the neuron run is asserted:
  * the same number of spikes, per gid and in all;
  * the same gid sequence when both sets are sorted by (time, gid);
  * every spike time within tol-steps·dt of NEURON's (the k-th spike against the k-th);
  * NEURON fires on every cell (a silent network would compare nothing).
The arbor run is reported (counts, order, worst |dt|): its spikes drift from NEURON's
by about one step per synaptic hop, by design (docs/event-rules.md).

--set KEY=JSON overrides one value of the model before anything runs, with KEY a dotted
path (e.g. --set network.delay=5.0125); the modified model is written to the work dir.
Exit status: 0 pass, 1 fail or error, 77 when NEURON (python3-neuron) is missing.
Run with /usr/bin/python3 (it has neuron, h5py and numpy).
"""
import argparse
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
tests = os.path.dirname(here)
sys.path.insert(0, tests)

import importlib.util  # noqa: E402

# Looked up, not imported: importing neuron prints a "no DISPLAY" banner.
_missing = [m for m in ("neuron", "h5py", "numpy") if importlib.util.find_spec(m) is None]
if _missing:
    print("SKIP: no %s (run with /usr/bin/python3; needs python3-neuron, h5py, numpy)" % ", ".join(_missing))
    sys.exit(77)
import numpy as np  # noqa: E402
import sonata_reader  # noqa: E402
from network_setup import prepared_model, run, work_dir  # noqa: E402


def spike_table(path):
    r = sonata_reader.read(path)  # sorted by (time, gid)
    return r["spikes_gid"].astype(np.int64), r["spikes_t"]


def compare(arb, nrn, dt, tol_steps):
    """Figures of arb's spikes against NEURON's; `ok` by the rules in the module comment."""
    ga, ta = arb
    gn, tn = nrn
    out = {"spikes_arbolito": int(len(ta)), "spikes_neuron": int(len(tn))}
    gids = sorted(set(ga.tolist()) | set(gn.tolist()))
    per_gid = {g: (int((ga == g).sum()), int((gn == g).sum())) for g in gids}
    out["per_gid_counts_equal"] = all(a == b for a, b in per_gid.values())
    out["same_global_order"] = bool(len(ga) == len(gn) and np.array_equal(ga, gn))
    # The k-th spike of each gid against the k-th of that gid in NEURON.
    deltas = []
    for g in gids:
        a = ta[ga == g]
        b = tn[gn == g]
        k = min(len(a), len(b))
        deltas.extend((a[:k] - b[:k]).tolist())
    d = np.array(deltas)
    out["matched"] = int(len(d))
    out["worst_abs_dt_ms"] = float(np.abs(d).max()) if len(d) else 0.0
    out["worst_abs_dt_steps"] = out["worst_abs_dt_ms"] / dt
    out["min_dt_ms"] = float(d.min()) if len(d) else 0.0
    out["max_dt_ms"] = float(d.max()) if len(d) else 0.0
    reasons = []
    if out["spikes_arbolito"] != out["spikes_neuron"]:
        reasons.append("spike counts differ (%d vs NEURON %d)" % (out["spikes_arbolito"], out["spikes_neuron"]))
    bad = [g for g, (a, b) in per_gid.items() if a != b]
    if bad:
        reasons.append("per-gid counts differ for gids %s" % ", ".join(
            "%d (%d vs %d)" % (g, per_gid[g][0], per_gid[g][1]) for g in bad[:8]))
    if not out["same_global_order"]:
        k = next((i for i in range(min(len(ga), len(gn))) if ga[i] != gn[i]), min(len(ga), len(gn)))
        reasons.append("global order differs from spike %d on (arbolito %s, NEURON %s)" % (
            k, "gid %d t %.10g" % (ga[k], ta[k]) if k < len(ga) else "none",
            "gid %d t %.10g" % (gn[k], tn[k]) if k < len(gn) else "none"))
    if out["worst_abs_dt_ms"] > tol_steps * dt:
        reasons.append("worst |dt| %.6g ms = %.3f steps > %g steps" % (
            out["worst_abs_dt_ms"], out["worst_abs_dt_steps"], tol_steps))
    out["ok"] = not reasons
    out["reasons"] = reasons
    return out


def main(argv):
    ap = argparse.ArgumentParser(description="Network spike trains: arbolito vs NEURON on the same model.")
    ap.add_argument("arbolito", help="the arbolito binary")
    ap.add_argument("model", help="model JSON")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=JSON", help="override a model value")
    ap.add_argument("--workdir", help="keep the files here (default: a temporary directory, removed)")
    ap.add_argument("--tol-steps", type=float, default=2.0, help="spike-time tolerance in steps of dt (default 2)")
    ap.add_argument("--json", help="write the figures as JSON here")
    args = ap.parse_args(argv)

    try:
        with work_dir(args.workdir) as work:
            model, dump = prepared_model(args.arbolito, args.model, args.set, work)
            results = check(args, model, dump, work)
    except (OSError, ValueError, KeyError, RuntimeError) as e:
        print("network_vs_neuron.py: %s" % e, file=sys.stderr)
        return 1
    return report(args, results)


def check(args, model, dump, work):
    """NEURON's spikes of the dumped network, and arbolito's under each set of rules against them."""
    dt = float(dump["run"]["dt"])
    nrn_h5 = os.path.join(work, "nrn.h5")
    # --exact-cylinders: 2-point sections (somata) from L/diam in double, as arbolito has them.
    run([sys.executable, os.path.join(tests, "neuron", "run_neuron.py"), os.path.join(work, "geom.json"), nrn_h5,
         "--exact-cylinders"], "run_neuron.py")
    nrn = spike_table(nrn_h5)
    silent = sorted(set(c["gid"] for c in dump["cells"] if c.get("detectors")) - set(nrn[0].tolist()))
    if silent:
        raise RuntimeError("NEURON: cells %s never fire; the comparison would be empty there" %
                           ", ".join(map(str, silent[:10])))
    results = {"model": os.path.basename(args.model), "set": args.set, "dt": dt,
               "n_cells": len(dump["cells"]), "n_connections": len(dump.get("connections", [])),
               "tol_steps": args.tol_steps}
    for rules in ("neuron", "arbor"):
        h5 = os.path.join(work, "arb_%s.h5" % rules)
        run([args.arbolito, "run", model, "-o", h5, "--spikes-only", "--event-rules", rules, "--log-level", "warn"],
            "arbolito run --event-rules " + rules)
        results[rules] = compare(spike_table(h5), nrn, dt, args.tol_steps)
    return results


def report(args, results):
    dt = results["dt"]
    name = results["model"] + ("" if not args.set else " (" + ", ".join(args.set) + ")")
    print("%s: %d cells, %d connections, dt %g ms; NEURON %d spikes" % (
        name, results["n_cells"], results["n_connections"], dt, results["neuron"]["spikes_neuron"]))
    for rules in ("neuron", "arbor"):
        r = results[rules]
        print("  event rules %-6s: %d spikes, per-gid counts %s, global order %s, worst |dt| %.3g ms (%.3g steps), "
              "dt range [%.3g, %.3g] ms%s" % (
                  rules, r["spikes_arbolito"], "equal" if r["per_gid_counts_equal"] else "DIFFER",
                  "identical" if r["same_global_order"] else "differs", r["worst_abs_dt_ms"], r["worst_abs_dt_steps"],
                  r["min_dt_ms"], r["max_dt_ms"], "" if rules == "arbor" else (" -> OK" if r["ok"] else " -> FAIL")))
    for why in results["neuron"]["reasons"]:
        print("  FAIL (neuron rules): " + why)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)
    print(json.dumps({k: results[k] for k in ("model", "set")} | {
        "neuron_worst_abs_dt_ms": results["neuron"]["worst_abs_dt_ms"],
        "arbor_worst_abs_dt_ms": results["arbor"]["worst_abs_dt_ms"], "ok": results["neuron"]["ok"]}))
    return 0 if results["neuron"]["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
