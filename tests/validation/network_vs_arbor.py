#!/usr/bin/python3
"""Spikes and voltages of a busyring network: arbolito against Arbor on the same model.

    network_vs_arbor.py ARBOLITO MODEL.json --peer bench/arbor_busyring.py --arbor-python PY
                        [--set KEY=JSON ...] [--tol-steps 0.25] [--workdir DIR] [--plot OUT.png]

Arbor 0.12.2 (the PyPI wheel, CPU; PY is an interpreter that imports it) gets the network
only through arbolito's own interpretation of the model, as NEURON does: bench/arbor_busyring.py
rebuilds `arbolito info --geometry`'s cells, synapses, clamps, detectors, probes,
connections and generator times with Arbor's every-segment CVs. arbolito runs with
`--event-rules arbor`. Asserted:
  * the same number of spikes, per gid and in all, and the same gid sequence in time order;
  * every spike (the k-th of a gid against the k-th of that gid in Arbor) within
    tol-steps·dt. Other delivery rules shift the k-th spike of a chain by about k steps
    (docs/event-rules.md: NEURON's, 15 steps over 15 hops), so a quarter of a step tells
    the rules apart; what is left is the two CV layouts (Arbor puts a CV at each fork,
    arbolito NEURON's nodes at each section end).
Reported beside them: the recorded voltages' largest |dV| and RMS, and the smallest
distance of a weighted event's arrival (arbolito's spike time plus the delay) from a step
boundary. Where that distance is smaller than the spikes' differences, the two simulators
can deliver the event in neighbouring steps and the spike trains part by a step from
there on, with either layout equally right: such a model does not test the rules.

Exit status: 0 pass, 1 fail or error, 77 when PY cannot import arbor or this interpreter
lacks h5py or numpy. Run with /usr/bin/python3 (Debian's h5py and numpy).
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
tests = os.path.dirname(here)
sys.path.insert(0, tests)
sys.path.insert(0, here)

_missing = [m for m in ("h5py", "numpy") if importlib.util.find_spec(m) is None]
if _missing:
    print("SKIP: no %s in %s (run with /usr/bin/python3)" % (", ".join(_missing), sys.executable))
    sys.exit(77)
import numpy as np  # noqa: E402
import sonata_reader  # noqa: E402
from network_setup import prepared_model, run, work_dir  # noqa: E402


def per_gid(gids, times):
    out = {}
    for g, t in zip(gids.tolist(), times.tolist()):
        out.setdefault(int(g), []).append(float(t))
    return {g: sorted(v) for g, v in out.items()}


def read_arbor_spikes(path):
    pairs = []
    with open(path) as fh:
        for line in fh:
            g, t = line.split()
            pairs.append((float(t), int(g)))
    pairs.sort()
    return np.array([g for _, g in pairs], np.int64), np.array([t for t, _ in pairs])


def compare_spikes(a, b, dt, tol_steps):
    ga, ta = a
    gb, tb = b
    pa, pb = per_gid(ga, ta), per_gid(gb, tb)
    out = {"spikes_arbolito": int(len(ta)), "spikes_arbor": int(len(tb)), "reasons": []}
    bad = [g for g in sorted(set(pa) | set(pb)) if len(pa.get(g, [])) != len(pb.get(g, []))]
    if bad:
        out["reasons"].append("per-gid counts differ for gids %s" % ", ".join(
            "%d (%d vs %d)" % (g, len(pa.get(g, [])), len(pb.get(g, []))) for g in bad[:8]))
    if not (len(ga) == len(gb) and np.array_equal(ga, gb)):
        out["reasons"].append("the gid sequence in time order differs")
    d = np.array([x - y for g in pa for x, y in zip(pa[g], pb.get(g, []))])
    out["worst_abs_dt_ms"] = float(np.abs(d).max()) if len(d) else 0.0
    out["dt_range_ms"] = [float(d.min()), float(d.max())] if len(d) else [0.0, 0.0]
    if out["worst_abs_dt_ms"] > tol_steps * dt:
        out["reasons"].append("worst |dt| %.6g ms = %.3f steps > %g steps" % (
            out["worst_abs_dt_ms"], out["worst_abs_dt_ms"] / dt, tol_steps))
    if not len(ta):
        out["reasons"].append("no spikes: the comparison would be empty")
    return out


def compare_traces(report, arbor_traces):
    """report: sonata_reader.read of arbolito's file; arbor_traces: the peer's --traces JSON.
    The largest |dV| and RMS over every column, reported (the voltages of two CV layouts
    differ most at synaptic onsets, where no bound follows from the spikes alone)."""
    out = {"columns": 0, "worst_abs_dv_mv": 0.0, "worst_rms_dv_mv": 0.0, "reasons": []}
    if report["data"] is None or not arbor_traces["columns"]:
        return out
    t = np.asarray(report["time"], dtype=np.float64)
    tb = np.asarray(arbor_traces["times"], dtype=np.float64)
    if len(t) != len(tb) or np.abs(t - tb).max() > 1e-6:
        # Arbor samples on its own step grid, which starts again at each epoch: where the
        # epoch (half the smallest delay) is no multiple of the sampling period, its sample
        # times move off arbolito's. The voltages are then not compared.
        out["times_differ"] = True
        return out
    # A gid's columns in arbolito's report are its probes in the dump's order.
    ptr = report["index_pointers"].tolist()
    columns = {int(g): list(range(ptr[i], ptr[i + 1])) for i, g in enumerate(report["node_ids"].tolist())}
    for c in arbor_traces["columns"]:
        mine = columns.get(c["gid"], [])
        if c["probe"] >= len(mine):
            out["reasons"].append("gid %d: no column for probe %d" % (c["gid"], c["probe"]))
            continue
        dv = np.abs(report["data"][:, mine[c["probe"]]].astype(np.float64) - np.asarray(c["v"], dtype=np.float64))
        k = int(np.argmax(dv))
        out["columns"] += 1
        out["worst_rms_dv_mv"] = max(out["worst_rms_dv_mv"], float(np.sqrt((dv ** 2).mean())))
        if dv[k] >= out["worst_abs_dv_mv"]:
            out["worst_abs_dv_mv"] = float(dv[k])
            out["worst_at"] = {"gid": c["gid"], "probe": c["probe"], "t_ms": float(t[k])}
    return out


def plot(report, arbor_traces, path, title):
    """The first column's voltage in both simulators (top) and arbolito − Arbor (bottom)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    c = arbor_traces["columns"][0]
    t = np.asarray(report["time"])
    x = report["data"][:, report["index_pointers"][list(report["node_ids"]).index(c["gid"])]].astype(np.float64)
    y = np.asarray(c["v"])
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(8, 5), gridspec_kw={"height_ratios": [2, 1]})
    top.plot(t, x, lw=1.2, label="arbolito")
    top.plot(t, y, lw=0.8, ls="--", label="Arbor 0.12.2")
    top.set_ylabel("V (mV)")
    top.set_title("%s, gid %d, probe 0" % (title, c["gid"]))
    top.legend(loc="upper right")
    bottom.plot(t, x - y, lw=0.8, color="k")
    bottom.set_ylabel("arbolito − Arbor (mV)")
    bottom.set_xlabel("t (ms)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def arrival_margin(dump, spikes, dt):
    """The smallest distance (ms) of a weighted connection's arrival from a step boundary."""
    by_source = per_gid(*spikes)
    best = None
    for k in dump.get("connections", []):
        if k["weight"] == 0:
            continue
        for ts in by_source.get(k["source"], []):
            q = (ts + k["delay"]) / dt
            m = abs(q - round(q)) * dt
            best = m if best is None else min(best, m)
    return best


def main(argv):
    ap = argparse.ArgumentParser(description="Busyring spikes and voltages: arbolito vs Arbor on the same model.")
    ap.add_argument("arbolito", help="the arbolito binary")
    ap.add_argument("model", help="model JSON (busyring builder)")
    ap.add_argument("--peer", required=True, help="bench/arbor_busyring.py")
    ap.add_argument("--arbor-python", required=True, help="an interpreter that imports arbor 0.12.2")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=JSON", help="override a model value")
    ap.add_argument("--tol-steps", type=float, default=0.25, help="spike-time tolerance in steps (default 0.25)")
    ap.add_argument("--workdir", help="keep the files here (default: a temporary directory, removed)")
    ap.add_argument("--plot", help="draw the first recorded column's voltages of both and their difference here (PNG)")
    args = ap.parse_args(argv)

    probe = subprocess.run([args.arbor_python, "-c", "import arbor; print(arbor.__version__)"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True) \
        if os.path.exists(args.arbor_python) else None
    if probe is None or probe.returncode != 0:
        print("SKIP: %s cannot import arbor (tools/test.sh makes build/arbor-peer with arbor==0.12.2 from PyPI; "
              "or configure with -DARBOLITO_ARBOR_PYTHON=...)" % args.arbor_python)
        return 77

    try:
        with work_dir(args.workdir) as work:
            model, dump = prepared_model(args.arbolito, args.model, args.set, work)
            dt = float(dump["run"]["dt"])
            h5 = os.path.join(work, "arbolito.h5")
            run([args.arbolito, "run", model, "-o", h5, "--event-rules", "arbor", "--log-level", "warn"],
                "arbolito run")
            spikes_txt, traces_json = os.path.join(work, "arbor_spikes.txt"), os.path.join(work, "arbor_traces.json")
            peer = run([args.arbor_python, args.peer, model, "--arbolito", args.arbolito, "--spikes", spikes_txt,
                        "--traces", traces_json], "Arbor (%s)" % args.peer)
            report = sonata_reader.read(h5)
            ours = (report["spikes_gid"].astype(np.int64), report["spikes_t"])
            spikes = compare_spikes(ours, read_arbor_spikes(spikes_txt), dt, args.tol_steps)
            with open(traces_json) as fh:
                arbor_traces = json.load(fh)
            traces = compare_traces(report, arbor_traces)
            if args.plot and traces["columns"]:
                plot(report, arbor_traces, args.plot, os.path.basename(args.model))
            margin = arrival_margin(dump, ours, dt)
    except (OSError, ValueError, KeyError, RuntimeError) as e:
        print("network_vs_arbor.py: %s" % e, file=sys.stderr)
        return 1

    arbor_line = json.loads(peer.stdout.strip().splitlines()[-1])
    name = os.path.basename(args.model) + ("" if not args.set else " (" + ", ".join(args.set) + ")")
    print("%s: %d cells, dt %g ms; arbolito %d CVs, %s %d CVs" % (
        name, len(dump["cells"]), dt, arbor_line["cvs_arbolito"], arbor_line["simulator"], arbor_line["cvs"]))
    print("  spikes: %d against Arbor's %d, worst |dt| %.3g ms (%.3g steps), dt range [%.3g, %.3g] ms" % (
        spikes["spikes_arbolito"], spikes["spikes_arbor"], spikes["worst_abs_dt_ms"], spikes["worst_abs_dt_ms"] / dt,
        *spikes["dt_range_ms"]))
    if traces["columns"]:
        w = traces["worst_at"]
        print("  voltages (reported): %d columns, worst |dV| %.3g mV (gid %d at %.4g ms), worst RMS %.3g mV" % (
            traces["columns"], traces["worst_abs_dv_mv"], w["gid"], w["t_ms"], traces["worst_rms_dv_mv"]))
    elif traces.get("times_differ"):
        print("  voltages: not compared (Arbor's sample times are off arbolito's grid)")
    if margin is not None:
        print("  weighted arrivals: the closest %.3g ms (%.3g steps) from a step boundary" % (margin, margin / dt))
    reasons = spikes["reasons"] + traces["reasons"]
    for why in reasons:
        print("  FAIL: " + why)
    print(json.dumps({"model": name, "worst_abs_dt_ms": spikes["worst_abs_dt_ms"],
                      "worst_abs_dv_mv": traces["worst_abs_dv_mv"], "arrival_margin_ms": margin,
                      "ok": not reasons}))
    return 0 if not reasons else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
