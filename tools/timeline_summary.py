#!/usr/bin/env python3
"""Summarise a run's timeline (arbolito run --timeline FILE.csv, run/timeline.hpp):
where the update's thread waited and, for GPU groups, how long the device sat idle
between its pieces. Prints the run's length, the epochs' update time, the exposed
exchange (from an epoch's `update end` to its `exchange joined`), with several ranks the
stop flags' agreement (`exchange joined` to `stop agreed`), the device's idle time
(from a piece's `piece synced` to the next `piece launched`) and the largest gaps of each;
each marking thread's group updates (`group update begin` to `end`: a GPU group's host
thread drives one group). Where the run wrote TIMELINE.epochs.csv beside it (every
rank's epochs, run/epoch_times.hpp), also its breakdown: per epoch, on the rank of its
slowest group, the mean group's integration, the load imbalance (slowest group minus the
mean), the update beyond its slowest group, the exposed exchange and the rest.
Usage: timeline_summary.py TIMELINE.csv [--top N]. A file that is no timeline: one line
on stderr, exit status 2."""
import argparse
import collections
import csv
import os
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

# Each thread's group updates: one line per thread that advanced groups.
per_thread = collections.defaultdict(float)
open_group = {}
for t, m, s, th in marks:
    if m == "group update begin":
        open_group[th] = t
    elif m == "group update end" and th in open_group:
        per_thread[th] += t - open_group.pop(th)
if per_thread:
    print("group updates by thread: " + ", ".join(f"thread {th} {ms:.3f} ms" for th, ms in sorted(per_thread.items())))

# The epoch table beside the timeline: the same breakdown as the run's log.
table = (a.csv[:-4] if a.csv.endswith(".csv") else a.csv) + ".epochs.csv"
if os.path.exists(table):
    try:
        with open(table, newline="") as f:
            rows = list(csv.DictReader(f))
        epochs = collections.defaultdict(dict)  # epoch -> rank -> (update, exposed, wall, [integrate])
        for r in rows:
            e = epochs[int(r["epoch"])].setdefault(int(r["rank"]), [float(r["update_s"]), float(r["exposed_s"]),
                                                                     float(r["wall_s"]), []])
            e[3].append(float(r["integrate_s"]))
    except (OSError, KeyError, ValueError) as e:
        print(f"timeline_summary.py: {table}: not an epoch table: {e}", file=sys.stderr)
        sys.exit(2)
    tot = collections.Counter()
    groups = 0
    for k, ranks in epochs.items():
        all_g = [(s, r) for r, v in ranks.items() for s in v[3]]
        groups = len(all_g)
        slowest, on = max(all_g)
        mean = sum(s for s, _ in all_g) / len(all_g)
        update, exposed, wall, _ = ranks[on]
        tot["wall"] += wall
        tot["mean"] += mean
        tot["imbalance"] += slowest - mean
        tot["update"] += update - slowest
        tot["exposed"] += exposed
        tot["rest"] += wall - update - exposed
    w = tot["wall"] or 1.0
    print(f"epochs: {len(epochs)} of {groups} group(s), {tot['wall']:.3f} s on the rank of each epoch's slowest group "
          f"(mean group's integration {tot['mean']:.3f} s, {100 * tot['mean'] / w:.1f} %; load imbalance "
          f"{tot['imbalance']:.3f} s, {100 * tot['imbalance'] / w:.1f} %; update beyond its slowest group "
          f"{tot['update']:.3f} s, {100 * tot['update'] / w:.1f} %; exposed exchange {tot['exposed']:.3f} s, "
          f"{100 * tot['exposed'] / w:.1f} %; rest {tot['rest']:.3f} s, {100 * tot['rest'] / w:.1f} %)")
