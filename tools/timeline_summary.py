#!/usr/bin/env python3
"""Summarise a run's timeline (arbolito run --timeline FILE.csv, engine/timeline.hpp):
where the update's thread waited and, for GPU groups, how long the device sat idle
between its pieces. Prints the run's length, the epochs' update time, the exposed
exchange (from an epoch's `update end` to its `exchange joined`), the device's idle time
(from a piece's `piece synced` to the next `piece launched`) and the largest gaps of each.
Usage: timeline_summary.py TIMELINE.csv [--top N]. A file that is no timeline: one line
on stderr, exit status 2."""
import argparse
import csv
import sys

ap = argparse.ArgumentParser()
ap.add_argument("csv")
ap.add_argument("--top", type=int, default=5, help="largest gaps to list (default 5)")
a = ap.parse_args()
try:
    with open(a.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    marks = [(float(r["us"]) / 1000.0, r["mark"], int(r["step"])) for r in rows]
except (OSError, KeyError, ValueError, TypeError) as e:
    print(f"timeline_summary.py: {a.csv}: not a timeline (thread,us,mark,step): {e}", file=sys.stderr)
    sys.exit(2)
if not marks:
    print(f"timeline_summary.py: {a.csv}: no marks", file=sys.stderr)
    sys.exit(2)

def gaps(begin, end):
    """(ms, step) from each `begin` mark to the next `end` mark, both on the update's side."""
    out, t0, s0 = [], None, None
    for t, m, s in marks:
        if m == begin:
            t0, s0 = t, s
        elif m == end and t0 is not None:
            out.append((t - t0, s0))
            t0 = None
    return out

update = gaps("update begin", "update end")
exposed = gaps("update end", "exchange joined")
idle = gaps("piece synced", "piece launched")
first = next((t for t, m, _ in marks if m in ("piece launched", "update begin")), 0.0)
length = marks[-1][0] - marks[0][0]
print(f"run: {length:.3f} ms, {len(update)} epochs; first update or launch at {first:.3f} ms")
for name, g in (("update", update), ("exposed exchange", exposed), ("device idle between pieces", idle)):
    if not g:
        continue
    total = sum(ms for ms, _ in g)
    top = ", ".join(f"{ms:.3f} ms (step {s})" for ms, s in sorted(g, reverse=True)[: a.top])
    print(f"{name}: {total:.3f} ms in {len(g)} ({100 * total / length:.1f} % of the run); largest: {top}")
