"""The same model with several solvers, each against the first, as `arbolito compare`.

    python3 examples/python/compare_solvers.py [MODEL.json] [--solvers cpu,omp,gpu-fine]

Without --solvers: cpu, omp and, in a CUDA build on a machine with a GPU, gpu-cell and
gpu-fine.
"""
import argparse
import pathlib

import arbolito

HERE = pathlib.Path(__file__).resolve().parent


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model", nargs="?", default=str(HERE.parent / "ring.json"))
    p.add_argument("--solvers", help="comma-separated solver specs")
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    if a.solvers:
        solvers = a.solvers.split(",")
    else:
        here = {s["name"] for s in arbolito.solvers() if s["available"]}
        solvers = [s for s in ("cpu", "omp", "gpu-cell", "gpu-fine") if s in here]
    table = arbolito.compare(arbolito.Model.from_file(a.model), solvers, threads=a.threads)
    rows = table.to_dict("records") if hasattr(table, "to_dict") else table
    print(f"{'solver':<12} {'run_s':>8} {'speedup':>8} {'max|dV| mV':>11} {'spikes':>7} {'bitwise':>8}  verdict")
    for r in rows:
        print(f"{r['solver']:<12} {r['run_s']:>8.3f} {r['speedup']:>8.2f} {r['max_abs_dv_mV']:>11.3g} "
              f"{r['n_spikes']:>7} {'yes' if r['spikes_identical'] else 'no':>8}  {r['verdict']}")
        for w in r["why"]:
            print(f"  {r['solver']}: {w}")


if __name__ == "__main__":
    main()
