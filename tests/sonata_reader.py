#!/usr/bin/python3
"""Reads arbolito's SONATA output (docs/sonata-output.md) and compares two files.

    read(path) -> dict(time, data, node_ids, index_pointers, element_ids, element_pos,
                       spikes_gid, spikes_t)

    sonata_reader.py compare A.h5 B.h5 --vtol X [--ttol T] [--json OUT]

compare prints max |dV| over all samples and columns, the spike counts, whether the gid
sequences of the spikes ordered by time are identical and the largest |dt| of matched
spikes (the k-th spike of a gid in A against the k-th of that gid in B). It exits 0 iff
max |dV| <= vtol and, with --ttol, the spikes agree in number and order with |dt| <= ttol;
1 otherwise, also when the reports differ in shape or mapping.

Run it with Debian's /usr/bin/python3 (python3-h5py).
"""
import argparse
import json
import sys

import h5py
import numpy as np


def _population(group, population, path):
    names = list(group.keys())
    if population is not None:
        if population not in group:
            raise ValueError(f"{path}: no population {population!r} under {group.name}")
        return group[population]
    if len(names) != 1:
        raise ValueError(f"{path}: {group.name} holds populations {names}; name one")
    return group[names[0]]


def read(path, population=None):
    """The report (None entries when the file has no /report) and the spikes
    (empty arrays when it has no /spikes), spikes ordered by (time, gid)."""
    out = dict(time=None, data=None, node_ids=None, index_pointers=None, element_ids=None, element_pos=None,
               spikes_gid=np.zeros(0, np.uint64), spikes_t=np.zeros(0, np.float64))
    with h5py.File(path, "r") as f:
        if "report" in f:
            pop = _population(f["report"], population, path)
            m = pop["mapping"]
            data = pop["data"][()]
            start, stop, step = (float(x) for x in m["time"][()])
            n_frames = int(round((stop - start) / step))
            if data.shape[0] != n_frames:
                raise ValueError(f"{path}: data has {data.shape[0]} frames, time {start, stop, step} gives {n_frames}")
            ptr = m["index_pointers"] if "index_pointers" in m else m["index_pointer"]  # BMTK's spelling
            out.update(time=start + step * np.arange(n_frames), data=data, node_ids=m["node_ids"][()],
                       index_pointers=ptr[()], element_ids=m["element_ids"][()],
                       element_pos=m["element_pos"][()] if "element_pos" in m else None)
        if "spikes" in f:
            pop = _population(f["spikes"], population, path)
            t = pop["timestamps"][()].astype(np.float64)
            gid = pop["node_ids"][()].astype(np.uint64)
            order = np.lexsort((gid, t))
            out.update(spikes_gid=gid[order], spikes_t=t[order])
    return out


def _mapping_difference(a, b):
    """Why the reports of a and b cannot be compared sample by sample, or None."""
    if (a["data"] is None) != (b["data"] is None):
        return "only one file has a /report"
    if a["data"] is None:
        return None
    if a["data"].shape != b["data"].shape:
        return f"data shapes differ: {a['data'].shape} vs {b['data'].shape}"
    for key in ("node_ids", "index_pointers", "element_ids"):
        if not np.array_equal(a[key], b[key]):
            return f"mapping {key} differs"
    if (a["element_pos"] is None) != (b["element_pos"] is None) or (
            a["element_pos"] is not None and not np.allclose(a["element_pos"], b["element_pos"], atol=1e-6)):
        return "mapping element_pos differs"
    if len(a["time"]) and not np.allclose(a["time"], b["time"], rtol=0, atol=1e-9):
        return "frame times differ"
    return None


def _spike_delta(a, b):
    """Largest |dt| pairing the k-th spike of each gid in a with the k-th of that gid in b."""
    worst = 0.0
    for g in np.intersect1d(a["spikes_gid"], b["spikes_gid"]):
        ta = a["spikes_t"][a["spikes_gid"] == g]
        tb = b["spikes_t"][b["spikes_gid"] == g]
        n = min(len(ta), len(tb))
        if n:
            worst = max(worst, float(np.max(np.abs(ta[:n] - tb[:n]))))
    return worst


def compare(a_path, b_path, vtol, ttol=None):
    """The comparison as a dict; 'ok' says whether it passes."""
    a, b = read(a_path), read(b_path)
    r = dict(a=a_path, b=b_path, vtol=vtol, ttol=ttol)
    why = _mapping_difference(a, b)
    if why is not None:
        r.update(ok=False, reason=why)
        return r
    if a["data"] is None or a["data"].size == 0:
        dv = 0.0
    else:
        # float64 so that the difference itself is exact; NaN anywhere fails the check
        dv = float(np.max(np.abs(a["data"].astype(np.float64) - b["data"].astype(np.float64))))
    same_order = bool(np.array_equal(a["spikes_gid"], b["spikes_gid"]))
    dt = _spike_delta(a, b)
    r.update(max_abs_dv=dv, columns=0 if a["data"] is None else a["data"].shape[1],
             frames=0 if a["data"] is None else a["data"].shape[0],
             spikes_a=len(a["spikes_t"]), spikes_b=len(b["spikes_t"]), same_spike_order=same_order,
             max_abs_dt=dt)
    ok = dv <= vtol
    reasons = [] if ok else [f"max |dV| {dv:.6g} mV > {vtol:g}"]
    if ttol is not None:
        if r["spikes_a"] != r["spikes_b"]:
            reasons.append(f"spike counts differ ({r['spikes_a']} vs {r['spikes_b']})")
        elif not same_order:
            reasons.append("spike order (gids by time) differs")
        if dt > ttol:
            reasons.append(f"max |dt| {dt:.6g} ms > {ttol:g}")
    r.update(ok=not reasons, reason="; ".join(reasons) or None)
    return r


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("compare", help="compare two output files")
    c.add_argument("a")
    c.add_argument("b")
    c.add_argument("--vtol", type=float, required=True, help="largest allowed |dV| [mV]")
    c.add_argument("--ttol", type=float, help="also require matching spikes within this |dt| [ms]")
    c.add_argument("--json", metavar="OUT", help="write the result as JSON")
    args = p.parse_args(argv)
    try:
        r = compare(args.a, args.b, args.vtol, args.ttol)
    except (OSError, KeyError, ValueError) as e:
        print(f"sonata_reader: {e}", file=sys.stderr)
        return 1
    if args.json:
        with open(args.json, "w") as f:
            json.dump(r, f, indent=1)
    if "max_abs_dv" in r:
        print(f"max |dV| = {r['max_abs_dv']:.6g} mV over {r['frames']} frames x {r['columns']} columns "
              f"(vtol {args.vtol:g})")
        print(f"spikes: {r['spikes_a']} vs {r['spikes_b']}; gid order by time "
              f"{'identical' if r['same_spike_order'] else 'differs'}; max |dt| of matched = {r['max_abs_dt']:.6g} ms")
    print("OK" if r["ok"] else f"FAIL: {r['reason']}")
    return 0 if r["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
