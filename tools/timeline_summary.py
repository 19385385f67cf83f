#!/usr/bin/env python3
"""Summarise a run's timeline (arbolito run --timeline FILE.csv, run/timeline.hpp):
where the update's thread waited and, for GPU groups, how long the device sat idle
between its pieces. Prints the run's length, the epochs' update time, the exposed
exchange (from an epoch's `update end` to its `exchange joined`), with several ranks the
stop flags' agreement (`exchange joined` to `stop agreed`), the device's idle time
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
    marks = [(float(r["us"]) / 1000.0, r["mark"], int(r["step"]), r["thread"]) for r in rows]
except (OSError, KeyError, ValueError, TypeError) as e:
    print(f"timeline_summary.py: {a.csv}: not a timeline (thread,us,mark,step): {e}", file=sys.stderr)
    sys.exit(2)
if not marks:
    print(f"timeline_summary.py: {a.csv}: no marks", file=sys.stderr)
    sys.exit(2)

def gaps(begin, end):
    """(ms, step) from each `begin` mark to the next `end` mark of the same thread: the
    update's marks are the main thread's; several GPU groups mark from their OpenMP
    threads, so within an epoch each group's pieces pair with its own."""
    out, open_ = [], {}  # thread: (ms, step) of its last unmatched `begin`
    for t, m, s, th in marks:
        if m == begin:
            open_[th] = (t, s)
        elif m == end and th in open_:
            t0, s0 = open_.pop(th)
            out.append((t - t0, s0))
    return out

update = gaps("update begin", "update end")
exposed = gaps("update end", "exchange joined")
idle = gaps("piece synced", "piece launched")
# Several ranks with a stop handler: the stop flags' reduction between epochs, on the update's thread.
stop = gaps("exchange joined", "stop agreed")
first = next((t for t, m, _, _ in marks if m in ("piece launched", "update begin")), 0.0)
length = marks[-1][0] - marks[0][0]
print(f"run: {length:.3f} ms, {len(update)} epochs; first update or launch at {first:.3f} ms")
for name, g in (("update", update), ("exposed exchange", exposed), ("stop agreement between epochs", stop),
                ("device idle between pieces", idle)):
    if not g:
        continue
    total = sum(ms for ms, _ in g)
    top = ", ".join(f"{ms:.3f} ms (step {s})" for ms, s in sorted(g, reverse=True)[: a.top])
    share = f"{100 * total / length:.1f} % of the run" if length > 0 else "a run of no length"
    print(f"{name}: {total:.3f} ms in {len(g)} ({share}); largest: {top}")
