"""A parameter sweep from Python against the same runs from the command line.

N runs of bench/models/busyring64.json (64 cells), the synaptic weight
(network.event-weight) swept over N values, on the cpu solver:
  cli        `arbolito run MODEL --set network.event-weight=W ... -o FILE` once per point,
             as a shell loop or a script would run it (a process each, a SONATA file each);
  python     arbolito.run(model.with_set("network.event-weight", W), "cpu") in one
             process, the record kept in memory;
  python+h5  the same with output=FILE, the command line's file written too.
Each repeat runs the three sweeps side by side, point by point (the three runs of a point
in an order that rotates from point to point), so that the load of a shared machine falls
on all three alike; a sweep's time is the sum of its runs' wall times. The table gives
each sweep's median over the repeats and its ratio to the command line's.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_sweep.py build/app/arbolito \
        [--points 100] [--repeats 3] [--duration 20]
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import arbolito

HERE = pathlib.Path(__file__).resolve().parent
MODEL = HERE / "models" / "busyring64.json"


def run_cli(exe, weight, duration, out):
    subprocess.run([exe, "run", str(MODEL), "--set", f"network.event-weight={weight!r}", "--set",
                    f"network.duration={duration!r}", "--solver", "cpu", "-o", out, "--log-level", "warn"], check=True)


def run_python(base, weight, out):
    return len(arbolito.run(base.with_set("network.event-weight", weight), "cpu", output=out, progress=None).spikes)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("arbolito", help="the command line's binary (build/app/arbolito)")
    p.add_argument("--points", type=int, default=100)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--duration", type=float, default=20.0, help="ms simulated per run")
    a = p.parse_args()
    weights = [float(w) for w in np.linspace(0.1, 0.3, a.points)]
    times = {"cli": [], "python": [], "python+h5": []}
    base = arbolito.Model.from_file(MODEL).set("network.duration", a.duration)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "sweep.h5")
        runs = {
            "cli": lambda w: run_cli(a.arbolito, w, a.duration, out),
            "python": lambda w: run_python(base, w, None),
            "python+h5": lambda w: run_python(base, w, out),
        }
        names = list(runs)
        for rep in range(a.repeats):
            total = dict.fromkeys(names, 0.0)
            for k, w in enumerate(weights):
                for name in names[k % 3:] + names[:k % 3]:
                    t = time.monotonic()
                    runs[name](w)
                    total[name] += time.monotonic() - t
            for name in names:
                times[name].append(total[name])
            print(f"repeat {rep + 1}: " + ", ".join(f"{n} {total[n]:.2f} s" for n in names), file=sys.stderr, flush=True)
    cli = statistics.median(times["cli"])
    print(f"{a.points} runs of busyring64 ({a.duration:g} ms each, cpu), median of {a.repeats} sweeps:")
    print(f"{'sweep':<10} {'median_s':>9} {'per_run_ms':>11} {'vs_cli':>7}   all_s")
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"{name:<10} {m:>9.2f} {1e3 * m / a.points:>11.1f} {m / cli:>7.3f}   "
              + " ".join(f"{t:.2f}" for t in ts))


if __name__ == "__main__":
    main()
