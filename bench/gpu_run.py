#!/usr/bin/env python3
"""The GPU machine's runner: one device call is one command line of steps.

Run from the repository root on the GPU machine, with the binaries that bench/gpu_pack.sh
packed into .gpu_deps (carry .gpu_deps; carry .arbor-gpu, Arbor's GPU busyring, for the
steps that run Arbor beside arbolito):

    python3 bench/gpu_run.py [--out DIR] [--deps DIR] [--budget S] STEP [ARGS...] [STEP [ARGS...]]...

A step's name starts the next step; its arguments are positional (quote lists: "1024 8192")
or options (--name or --name VALUE). Every step's arguments are checked before the first
runs. The log is $OUT/gpu_run.log (printed as it grows); each step's raw output lies
beside it. Exit status: 0 when every step passed, 1 when one failed (or the speed guard
found a case slower), 2 for bad arguments or a bad or missing speed reference.
`python3 bench/gpu_run.py help` lists the steps. `self-test` needs no GPU (CI runs it).

Environment of every step: LD_LIBRARY_PATH with $DEPS/lib (unpacked from $DEPS/lib.tgz where gpu_pack.sh
archived it), $DEPS/mpi/lib (gpu_pack.sh --mpi) and CUDA's, ARBOLITO_SOURCE_DIR
(the tree: the GPU tests read tests/data), TMPDIR a scratch folder of this run.
"""
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STEPS = {}  # name -> Step


class UsageError(Exception):
    pass


class Step:
    def __init__(self, name, func, usage, doc, positional, flags, options):
        self.name, self.func, self.usage, self.doc = name, func, usage, doc
        self.positional, self.flags, self.options = positional, flags, options

    def parse(self, tokens):
        """Positionals and options of TOKENS; positional None: every token passes through."""
        if self.positional is None:
            return Args(list(tokens), {})
        pos, opt, it = [], {}, iter(tokens)
        for t in it:
            if t.startswith("--") and len(t) > 2:
                name = t[2:]
                if name in self.flags:
                    opt[name] = True
                elif name in self.options:
                    value = next(it, None)
                    if value is None:
                        raise UsageError(f"{self.name}: --{name} needs a value")
                    opt[name] = value
                else:
                    raise UsageError(f"{self.name}: unknown option {t} (usage: {self.name} {self.usage})")
            else:
                pos.append(t)
        lo, hi = self.positional
        if not lo <= len(pos) <= hi:
            raise UsageError(f"{self.name}: {len(pos)} arguments, wants {lo} to {hi} (usage: {self.name} {self.usage})")
        return Args(pos, opt)


class Args:
    def __init__(self, pos, opt):
        self.pos, self.opt = pos, opt

    def at(self, i, default):
        return self.pos[i] if len(self.pos) > i and self.pos[i] != "" else default


def step(name, usage, doc, positional=(0, 0), flags=(), options=()):
    def deco(func):
        STEPS[name] = Step(name, func, usage, doc, positional, set(flags), set(options))
        return func
    return deco


def split_steps(tokens):
    """[(step, its tokens)] from the command line's tokens."""
    steps = []
    for t in tokens:
        if t in STEPS:
            steps.append((STEPS[t], []))
        elif not steps:
            raise UsageError(f"'{t}' is not a step; `python3 bench/gpu_run.py help` lists them")
        else:
            steps[-1][1].append(t)
    if not steps:
        raise UsageError("no step given; `python3 bench/gpu_run.py help` lists them")
    return steps


def ints(text, what):
    try:
        return [int(x) for x in re.split(r"[ ,]+", text.strip()) if x]
    except ValueError:
        raise UsageError(f"{what}: '{text}' is not a list of integers") from None


class Ctx:
    """The run: output folder, binaries, log, time budget."""

    def __init__(self, out, deps, budget):
        self.out = Path(out).resolve()
        self.out.mkdir(parents=True, exist_ok=True)
        self.deps = Path(deps).resolve()
        self.prebuilt = self.deps / "prebuilt"
        self.tmp = Path(tempfile.mkdtemp(prefix="gpu_run."))
        self.t0 = time.monotonic()
        self.budget = budget
        self.log_path = self.out / "gpu_run.log"
        self.used_names = set()
        env = dict(os.environ)
        # mpi/: a build against the packed MPICH (gpu_pack.sh --mpi) loads its libmpi from there.
        mpi = self.deps / "mpi" / "lib"
        env["LD_LIBRARY_PATH"] = (f"{self.deps / 'lib'}:{mpi}:{mpi / 'mpich'}:/usr/local/cuda/lib64:" +
                                  env.get("LD_LIBRARY_PATH", ""))
        env["ARBOLITO_SOURCE_DIR"] = str(ROOT)
        env["TMPDIR"] = str(self.tmp)
        env["GPU_DEPS"] = str(self.deps)
        self.env = env
        self._device = None

    def log(self, *lines):
        with open(self.log_path, "a") as f:
            for line in lines:
                f.write(line + "\n")
                print(line, flush=True)

    def table(self, header, rows, indent="  "):
        """Rows of strings as aligned columns into the log."""
        rows = [list(map(str, header))] + [list(map(str, r)) for r in rows]
        width = [max(len(r[i]) for r in rows if i < len(r)) for i in range(len(rows[0]))]
        self.log(*(indent + "  ".join(c.ljust(width[i]) for i, c in enumerate(r)).rstrip() for r in rows))

    def left(self):
        return self.budget - (time.monotonic() - self.t0)

    def file(self, stem, ext):
        """A new file name in the output folder: STEM.EXT, then STEM_2.EXT, ..."""
        k = 1
        while True:
            name = f"{stem}{ext}" if k == 1 else f"{stem}_{k}{ext}"
            if name not in self.used_names and not (self.out / name).exists():
                self.used_names.add(name)
                return self.out / name
            k += 1

    def bin(self, name):
        """A packed binary by name (or a path): unpacked, executable, else an error."""
        p = Path(name) if "/" in name else self.prebuilt / name
        if not p.exists() and Path(str(p) + ".gz").exists():
            subprocess.run(["gunzip", "-f", str(p) + ".gz"], check=True)
            p.chmod(0o755)
        if not os.access(p, os.X_OK):
            raise StepError(f"no executable {p} (pack it with bench/gpu_pack.sh; carry .gpu_deps)")
        return p

    def run(self, cmd, limit, out=None, env=None):
        """CMD with its output (stdout and stderr) into OUT (or a scratch file): (rc, text,
        seconds); rc 124 past LIMIT seconds or the run's budget, its process group killed."""
        limit = min(limit, self.left() - 3)
        if limit < 1:
            return 124, "budget spent: not started\n", 0.0
        if not out:
            fd, out = tempfile.mkstemp(dir=self.tmp)
            os.close(fd)
        out = Path(out)
        e = dict(self.env, **(env or {}))
        t = time.monotonic()
        with open(out, "w") as f:
            p = subprocess.Popen([str(c) for c in cmd], stdout=f, stderr=subprocess.STDOUT, cwd=ROOT, env=e,
                                 start_new_session=True)
            try:
                rc = p.wait(timeout=limit)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                rc = 124
        with open(out, errors="replace") as f:
            return rc, f.read(), time.monotonic() - t

    def device(self):
        """The GPU's name, from nvidia-smi ("" without one)."""
        if self._device is None:
            try:
                r = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                                   text=True, timeout=30)
                lines = r.stdout.strip().splitlines() if r.returncode == 0 else []
                self._device = lines[0].strip() if lines else ""
            except (OSError, subprocess.TimeoutExpired):
                self._device = ""
        return self._device

    def stamp(self):
        try:
            return " ".join((self.prebuilt / "STAMP").read_text().split("\n")[:2]).strip()
        except OSError:
            return "(no STAMP: binaries not packed by bench/gpu_pack.sh)"

    def busyring_model(self, cells, base="examples/busyring.json", **network):
        """A copy of BASE (a busyring model) with CELLS cells and NETWORK's keys set."""
        m = json.loads((ROOT / base).read_text())
        m["network"]["num-cells"] = int(cells)
        m["network"].update(network)
        p = self.tmp / f"busyring_{cells}_{len(list(self.tmp.iterdir()))}.json"
        p.write_text(json.dumps(m))
        return p


class StepError(Exception):
    """A step cannot go on: its one line goes into the log."""


def grep(text, pattern, limit=30):
    rx = re.compile(pattern)
    return [line for line in text.splitlines() if rx.search(line)][:limit]


def last_json(text):
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                return None
    return None


def median(xs):
    return statistics.median(xs) if xs else float("nan")


# ---------------------------------------------------------------------------------------------
# Tests and sanitizers

@step("tests", "[FILTER [PATTERN]]",
      "gpu_tests (all, or those the gtest FILTER names): the verdicts and failures into the log, with the lines "
      "that match PATTERN (a regular expression); the whole output in tests.log",
      positional=(0, 2))
def step_tests(ctx, a):
    filt, pat = a.at(0, ""), a.at(1, "")
    cmd = [ctx.bin("gpu_tests")] + ([f"--gtest_filter={filt}"] if filt else [])
    f = ctx.file("tests", ".log")
    rc, text, s = ctx.run(cmd, 400, f)
    ctx.log(f"gpu_tests {filt or '(all)'}: rc {rc} in {s:.0f} s ({f.name})")
    verdicts = r"^\[  (PASSED|FAILED)|Failure|Expected|Which is" + (f"|{pat}" if pat else "")
    ctx.log(*("  " + x for x in grep(text, verdicts)))
    return 0 if rc == 0 else 1


@step("sanitize", "MEMCHECK_FILTER [RACECHECK_FILTER] [--leak-check] [--timeout S]",
      "compute-sanitizer memcheck and racecheck on the gpu_tests each filter names (either may be ''); "
      "their summaries into the log", positional=(1, 2), flags=("leak-check",), options=("timeout",))
def step_sanitize(ctx, a):
    ok = True
    limit = float(a.opt.get("timeout", 120))
    for tool, filt in (("memcheck", a.at(0, "")), ("racecheck", a.at(1, ""))):
        if not filt:
            continue
        extra = ["--leak-check", "full"] if tool == "memcheck" and a.opt.get("leak-check") else []
        f = ctx.file(tool, ".log")
        rc, text, s = ctx.run(["compute-sanitizer", "--tool", tool, "--error-exitcode", "3", *extra,
                               ctx.bin("gpu_tests"), f"--gtest_filter={filt}"], limit, f)
        ctx.log(f"{tool} {filt}: rc {rc} in {s:.0f} s ({f.name})")
        summary = r"ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY|^\[  (PASSED|FAILED)"
        ctx.log(*("  " + x for x in grep(text, summary, 6)))
        ok = ok and rc == 0
    return 0 if ok else 1


# ---------------------------------------------------------------------------------------------
# Whole busyring runs

BUSYRING_COLUMNS = ["cells", "solver", "tfinal_ms", "run_s", "kernel_s", "setup_s", "ns_per_cv_step", "n_cv",
                    "spikes", "events", "chosen"]


def busyring_table(ctx, cells, solvers, tfinal, tsv, binary=None, model=None):
    """Rows of bench/busyring_table.sh for CELLS x SOLVERS, appended to TSV; returns the
    rows of this call (dicts; a failed run has 'failed' set)."""
    before = len(read_busyring(tsv)) if Path(tsv).exists() else 0
    env = {}
    if binary:
        env["ARBOLITO"] = str(binary)
    if model:
        env["MODEL"] = str(ROOT / model)
    limit = 330 * max(1, len(cells) * len(solvers))
    rc, text, _ = ctx.run(["bash", "bench/busyring_table.sh", " ".join(map(str, cells)), " ".join(solvers), str(tfinal),
                           str(tsv)], limit, env=env)
    rows = read_busyring(tsv)[before:]
    if rc != 0 and not rows:
        ctx.log(f"  busyring_table.sh rc {rc}: {text.strip()[-300:]}")
    return rows


def read_busyring(tsv):
    rows = []
    with open(tsv) as f:
        for line in f.read().splitlines()[1:]:
            v = line.split("\t")
            if len(v) >= 4 and v[3].startswith("failed"):
                rows.append({"cells": v[0], "solver": v[1], "tfinal_ms": v[2], "failed": v[3]})
            elif len(v) == len(BUSYRING_COLUMNS):
                rows.append(dict(zip(BUSYRING_COLUMNS, v)))
    return rows


def log_busyring(ctx, rows):
    ctx.table(["cells", "solver", "ms", "run s", "kernel s", "set-up s", "ns/CV-step", "spikes", "chosen"],
              [[r["cells"], r["solver"], r["tfinal_ms"], r["failed"]] if "failed" in r else
               [r["cells"], r["solver"], r["tfinal_ms"], r["run_s"], r["kernel_s"], r["setup_s"], r["ns_per_cv_step"],
                r["spikes"], r["chosen"]] for r in rows])


def arbor_busyring(ctx, tags, limit):
    """Arbor's own busyring (.arbor-gpu/run.sh) at the parameter sets TAGS: {tag: summary row
    with ns_per_cv_step on Arbor's CVs}, or None without .arbor-gpu."""
    run_sh = ROOT / ".arbor-gpu" / "run.sh"
    if not run_sh.exists():
        ctx.log("  no .arbor-gpu in the tree: carry it (/work/shared/peers/arbor-gpu placed as .arbor-gpu/)")
        return None
    out = ctx.file("arbor", "")
    limit = min(limit, ctx.left() - 10)
    f = ctx.file("arbor", ".log")
    rc, text, s = ctx.run(["bash", str(run_sh), *tags], limit + 20, f,
                          env={"OUT": str(out), "RUN_TIMEOUT": str(int(max(limit, 1)))})
    ctx.log(f"  Arbor busyring {' '.join(tags)}: rc {rc} in {s:.0f} s ({f.name}, {out.name}/)")
    rows = {}
    summary = out / "arbor_busyring_summary.tsv"
    if summary.exists():
        lines = summary.read_text().splitlines()
        head = lines[0].split("\t")
        for line in lines[1:]:
            r = dict(zip(head, line.split("\t")))
            try:
                p = json.loads((ROOT / ".arbor-gpu" / "params" / f"busyring-{r['tag']}.json").read_text())
                steps = round(p["duration"] / p["dt"])
                r["tfinal_ms"] = str(p["duration"])
                r["ns_per_cv_step"] = "%.5f" % (float(r["model_run_s"]) * 1e9 / (int(r["segments"]) * steps))
            except (OSError, KeyError, ValueError, ZeroDivisionError):
                r["ns_per_cv_step"] = "nan"
            rows[r["tag"]] = r
    ctx.log(*("  " + x for x in grep(text, r"^--- ", 8)))
    return rows


def work_note(model):
    net = json.loads((ROOT / model).read_text())["network"]
    u = net.get("unconnected-synapses", "not set (the binary's default)")
    z = net.get("zero-area", "keep")  # fold: the branches' tips folded away, Arbor's CV count
    c = net.get("coalesce-synapses", "not set (the builder's default: true, as Arbor)")
    return (f"arbolito's work: {model}, synapses {net.get('synapses')}, unconnected-synapses {u}, zero-area {z}, "
            f"coalesce-synapses {c}")


@step("busyring", "CELLS SOLVERS [TFINAL] [--arbor] [--bin NAME] [--model FILE]",
      "whole busyring runs (bench/busyring_table.sh; default 200 ms), one row per cells and solver, into "
      "busyring.tsv and the log; --arbor: Arbor's GPU busyring at the same sizes (1024, 8192, 32768) in the "
      "same call, side by side in ns per CV-step; --bin: another packed arbolito; --model: another busyring model",
      positional=(2, 3), flags=("arbor",), options=("bin", "model"))
def step_busyring(ctx, a):
    cells, solvers, tfinal = ints(a.pos[0], "busyring CELLS"), a.pos[1].split(), a.at(2, "200")
    model = a.opt.get("model", "examples/busyring.json")
    binary = ctx.bin(a.opt.get("bin", "arbolito"))
    tsv = ctx.file("busyring", ".tsv")
    t = time.monotonic()
    rows = busyring_table(ctx, cells, solvers, tfinal, tsv, binary, model)
    ctx.log(f"busyring {tfinal} ms, {binary.name}, {model}: {len(rows)} rows in {time.monotonic() - t:.0f} s "
            f"({tsv.name})")
    log_busyring(ctx, rows)
    ok = bool(rows) and not any("failed" in r for r in rows)
    if a.opt.get("arbor"):
        tags = [str(c) for c in cells if (ROOT / ".arbor-gpu" / "params" / f"busyring-{c}.json").exists()]
        if not tags and (ROOT / ".arbor-gpu").exists():
            ctx.log("  Arbor: no parameter set for these sizes (it has 1024, 8192, 32768)")
            return 0 if ok else 1
        arbor = arbor_busyring(ctx, tags, 560)
        if arbor is None:
            return 1
        ctx.log(f"  {work_note(model)}; Arbor: .arbor-gpu/params (synapses 1000, 200 ms)",
                "  Arbor ÷ arbolito: ns per CV-step, each on its own CVs; run time where the durations match")
        table = []
        for r in rows:
            ar = arbor.get(r["cells"])
            if "failed" in r or not ar:
                continue
            x = float(ar["ns_per_cv_step"]) / float(r["ns_per_cv_step"])
            same = abs(float(ar.get("tfinal_ms", "nan")) - float(r["tfinal_ms"])) < 1e-9
            table.append([r["cells"], r["solver"], r["run_s"], r["ns_per_cv_step"], ar["model_run_s"],
                          ar["ns_per_cv_step"], ar["spikes"], "%.2f" % x,
                          "%.2f" % (float(ar["model_run_s"]) / float(r["run_s"])) if same else "-"])
        ctx.table(["cells", "arbolito solver", "run s", "ns/CV-step", "Arbor run s", "Arbor ns/CV-step", "Arbor spikes",
                   "ns ratio", "run ratio"], table)
        ok = ok and all(arbor.get(t, {}).get("rc") == "0" for t in tags)
    return 0 if ok else 1


@step("host-busyring", "[REPS] [--cells N] [--tfinal MS]",
      "omp on every host core (lanes auto and lanes=1), busyring 1,024 cells x 50 ms, REPS rounds (default 2), "
      "then Arbor's CPU busyring on every core (.arbor-gpu/run.sh cpu1024, the same cells and duration)",
      positional=(0, 1), options=("cells", "tfinal"))
def step_host_busyring(ctx, a):
    reps, cells, tfinal = int(a.at(0, "2")), int(a.opt.get("cells", 1024)), a.opt.get("tfinal", "50")
    n = os.cpu_count() or 1
    model = ctx.busyring_model(cells)
    runs = {}
    for _ in range(reps):
        for spec in ("omp", "omp:lanes=1"):
            rc, text, _ = ctx.run([ctx.bin("arbolito"), "run", model, "--tfinal", tfinal, "--solver", spec,
                                   "--threads", n, "--spikes-only", "--timings", "json", "-o", ctx.tmp / "host.h5"],
                                  300, env={"OMP_NUM_THREADS": str(n)})
            j = last_json(text) if rc == 0 else None
            runs.setdefault(spec, []).append(j)
    ctx.log(f"host busyring, {cells} cells x {tfinal} ms, {n} cores, omp --threads {n}:")
    table, ok = [], True
    for spec, js in runs.items():
        good = [j for j in js if j]
        ok = ok and len(good) == len(js)
        table.append([spec, ", ".join("%.3f" % j["run"] for j in good) or "failed",
                      "%.4f" % median([j["ns_per_cv_step"] for j in good]),
                      good[0]["n_spikes"] if good else "-"])
    if cells == 1024 and tfinal == "50":
        arbor = arbor_busyring(ctx, ["cpu1024"], 200)
        if arbor and "cpu1024" in arbor:
            r = arbor["cpu1024"]
            table.append([f"Arbor CPU busyring, {r.get('threads')} threads", r["model_run_s"], r["ns_per_cv_step"],
                          r["spikes"]])
            best = median([j["ns_per_cv_step"] for j in runs["omp"] if j])
            ctx.log(f"  Arbor ÷ omp, ns per CV-step (each on its own CVs): {float(r['ns_per_cv_step']) / best:.2f}")
        ctx.log("  " + work_note("examples/busyring.json") + "; Arbor: .arbor-gpu/params/busyring-cpu1024.json")
    else:
        ctx.log("  (no Arbor: its CPU parameter set is 1,024 cells x 50 ms)")
    ctx.table(["variant", "run s", "ns/CV-step (median)", "spikes"], table)
    return 0 if ok else 1


def allen_dir(opt):
    """The Allen models: --allen, else .allen (a carried copy of ../shared/models/allen, git-ignored),
    else ../shared/models/allen beside the tree."""
    for d in ([opt] if opt else [ROOT / ".allen", ROOT.parent / "shared" / "models" / "allen"]):
        if (Path(d) / "fits").is_dir():
            return Path(d).resolve()
    raise StepError("no Allen models: carry ../shared/models/allen as .allen (git-ignored), or give --allen DIR")


def result_line(text):
    """The JSON after "RESULT " in bench/allen_network_arbor.cpp's output (None if absent)."""
    for line in reversed(text.splitlines()):
        if line.startswith("RESULT "):
            try:
                return json.loads(line[7:])
            except ValueError:
                return None
    return None


@step("allen-network", "[CELLS] [TFINAL] [--solvers LIST] [--arbor NAME] [--bin NAME] [--allen DIR] "
      "[--host-tfinal MS] [--zero-area fold|keep] [--no-host] [--ncu]",
      "the Allen network of tools/allen_network.py (CELLS default 10000, TFINAL default 1000 ms; the four "
      "perisomatic fits, Poisson input on exp2syn, random connections), generated here: arbolito's GPU solvers "
      "(LIST, default 'gpu-fine gpu-fine:step=resident gpu-cell auto') and Arbor's recipe program "
      "(bench/allen_network_arbor.cpp, packed as prebuilt/allen_network_arbor) on the GPU, one table; then the "
      "host: omp on every core against the Arbor program's CPU backend on as many threads, HOST-TFINAL ms "
      "(default 100) of the same network; --bin: an arbolito built with the Allen channels; --zero-area: "
      "arbolito's zero-area nodes (tools/allen_network.py's, default fold: Arbor's CV counts); --ncu: Nsight "
      "Compute on one epoch kernel of the resident step on this network (ncu_allen.txt), and every run's phases in "
      "the log",
      positional=(0, 2), flags=("no-host", "ncu"), options=("solvers", "arbor", "bin", "allen", "host-tfinal", "zero-area"))
def step_allen_network(ctx, a):
    cells, tfinal = ints(a.at(0, "10000"), "allen-network CELLS"), a.at(1, "1000")
    if len(cells) != 1 or cells[0] < 1:
        raise UsageError(f"allen-network: CELLS must be one positive number, not '{a.at(0, '')}'")
    try:
        host_tfinal = float(a.opt.get("host-tfinal", "100"))
        if not (float(tfinal) > 0 and host_tfinal > 0):
            raise ValueError
    except ValueError:
        raise UsageError("allen-network: TFINAL and --host-tfinal must be positive numbers of ms") from None
    solvers = a.opt.get("solvers", "gpu-fine gpu-fine:step=resident gpu-cell auto").split()
    arbolito = ctx.bin(a.opt.get("bin", "arbolito"))
    arbor = ctx.bin(a.opt.get("arbor", "allen_network_arbor"))
    allen = allen_dir(a.opt.get("allen"))
    zero_area = a.opt.get("zero-area", "fold")
    if zero_area not in ("fold", "keep"):
        raise UsageError(f"allen-network: --zero-area must be fold or keep, not '{zero_area}'")
    net = ctx.tmp / "allen_network"
    t = time.monotonic()
    rc, text, s = ctx.run([sys.executable, ROOT / "tools" / "allen_network.py", arbolito, net, "--cells", cells[0],
                           "--tfinal", tfinal, "--allen", allen, "--zero-area", zero_area], 300)
    if rc != 0:
        raise StepError(f"tools/allen_network.py rc {rc}: {text.strip()[-400:]}")
    ctx.log(f"  {text.strip()} ({s:.0f} s; {allen})")
    model, desc = net / "network.json", net / "network.desc.json"
    rows, ok = [], True

    def arbolito_run(spec, extra=(), env=None, limit=400):
        f = ctx.file("allen_network_" + re.sub(r"[^a-z0-9]+", "_", spec), ".log")
        rc, text, s = ctx.run([arbolito, "run", model, "--solver", spec, "--spikes-only", "--timings", "json",
                               "-o", ctx.tmp / "allen.h5", *extra], limit, f, env=env)
        j = last_json(text) if rc == 0 else None
        if not j:
            ctx.log(f"  arbolito {spec}: rc {rc}: {text.strip()[-300:]}")
            return None
        if a.opt.get("ncu"):
            ctx.log(f"  arbolito {spec} phases s: " + ", ".join(
                f"{k} {j[k]:.3f}" for k in ("events", "currents", "assemble", "solve", "states", "detect", "sample",
                                             "fused", "exchange_exposed") if isinstance(j.get(k), (int, float))))
        return ["arbolito " + spec, j.get("solver", spec), j.get("threads", "-"), "%.2f" % j["setup"], "%.3f" % j["run"],
                j["n_cv"], "%.4f" % j["ns_per_cv_step"], j["n_spikes"]], j["run"]

    def arbor_run(extra=(), limit=500):
        f = ctx.file("allen_network_arbor", ".log")
        rc, text, s = ctx.run([arbor, desc, *extra], limit, f)
        j = result_line(text) if rc == 0 else None
        if not j:
            ctx.log(f"  Arbor: rc {rc}: {text.strip()[-300:]}")
            return None
        return [j["simulator"], j["backend"], j["threads"], "%.2f" % j["setup_s"], "%.3f" % j["run_s"], j["cvs"],
                "%.4f" % j["ns_per_cv_step"], j["spikes"]], j["run_s"]

    def show(title, got):
        ctx.log(title)
        base = [r for r in got if r and r[0][0].startswith("arbor ")]
        ctx.table(["run", "backend", "threads", "set-up s", "run s", "CVs", "ns/CV-step", "spikes", "Arbor run ÷ this"],
                  [r[0] + (["%.2f" % (base[0][1] / r[1])] if base else ["-"]) for r in got if r])

    got = [arbolito_run(spec) for spec in solvers]
    got.append(arbor_run())
    ok = all(got)
    show(f"allen-network {cells[0]} cells x {tfinal} ms on the GPU ({ctx.device() or 'no GPU'}):", got)
    if got[-1] and got[-1][0][1] != "gpu":
        ctx.log("  Arbor ran on the CPU: its binary found no GPU")
        ok = False
    if not a.opt.get("no-host"):
        n = os.cpu_count() or 1
        ht = "%g" % host_tfinal
        host = [arbolito_run("omp", ("--threads", n, "--tfinal", ht), {"OMP_NUM_THREADS": str(n)}),
                arbor_run(("--cpu", "--threads", n, "--tfinal", ht))]
        ok = ok and all(host)
        show(f"allen-network {cells[0]} cells x {ht} ms on the host ({n} cores):", host)
    if a.opt.get("ncu"):
        f = ctx.file("ncu_allen", ".txt")
        rc, text, s = ctx.run(["ncu", "--clock-control", "none", "-k", "regex:resident_kernel", "--launch-skip", "1",
                               "--launch-count", "1", "--section", "SpeedOfLight", "--section", "Occupancy",
                               "--section", "LaunchStats", "--section", "WarpStateStats", "--section",
                               "MemoryWorkloadAnalysis", "--section", "ComputeWorkloadAnalysis", "--section",
                               "InstructionStats", "--metrics", NCU_METRICS, arbolito, "run", model, "--tfinal", "12",
                               "--solver", "gpu-fine:step=resident", "--spikes-only", "-o", ctx.tmp / "ncu.h5"], 300, f)
        ctx.log(f"ncu allen resident: rc {rc} in {s:.0f} s ({f.name})",
                *grep(text, r"Duration|dfma|dmul|dadd|dram__bytes|Warp Cycles Per Issued|Avg. Active Threads|Stall|"
                            r"Achieved Occupancy|Theoretical Occupancy|Block Limit|Registers Per|L2 Hit|L1/TEX Hit|"
                            r"DRAM Throughput|Compute \(SM\)|Executed Ipc|Issue Slots", 50))
        ok = ok and rc == 0
    ctx.log("  CVs: each simulator's own count (arbolito: NEURON's nodes with the zero-area ones at section ends; "
            "Arbor: its CVs, zero-length ones at forks); docs/allen-validation.md, \"The network\"")
    return 0 if ok else 1


def same_h5_data(a, b):
    """Whether two HDF5 files hold the same groups, datasets (values bit for bit) and
    attributes (h5py, as the GPU machine has it; no h5diff there). Returns (same, why)."""
    try:
        import h5py
        import numpy as np
    except ImportError as e:
        return False, f"bytes differ and h5py is missing: {e}"
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        names_a, names_b = [], []
        fa.visit(names_a.append)
        fb.visit(names_b.append)
        if sorted(names_a) != sorted(names_b):
            return False, f"other objects: {sorted(set(names_a) ^ set(names_b))[:5]}"
        for name in [""] + names_a:
            oa, ob = (fa[name], fb[name]) if name else (fa, fb)
            if sorted(oa.attrs) != sorted(ob.attrs):
                return False, f"{name or '/'}: other attributes"
            for k in oa.attrs:
                if not np.array_equal(np.asarray(oa.attrs[k]), np.asarray(ob.attrs[k])):
                    return False, f"{name or '/'}: attribute {k}"
            if isinstance(oa, h5py.Dataset):
                x, y = oa[()], ob[()]
                if np.asarray(x).dtype != np.asarray(y).dtype or np.asarray(x).shape != np.asarray(y).shape:
                    return False, f"{name}: other type or shape"
                if np.asarray(x).tobytes() != np.asarray(y).tobytes():
                    return False, f"{name}: values"
    return True, ""


@step("same-outputs", "BIN_A BIN_B SOLVERS...",
      "busyring 256 cells x 50 ms with soma traces (bench/models/busyring64.json) run by two packed arbolito "
      "binaries with each solver: whether the HDF5 outputs are byte-identical", positional=(3, 99))
def step_same_outputs(ctx, a):
    bin_a, bin_b = ctx.bin(a.pos[0]), ctx.bin(a.pos[1])
    model = ctx.busyring_model(256, "bench/models/busyring64.json", record=True)
    ok = True
    for s in " ".join(a.pos[2:]).split():
        files = []
        for b in (bin_a, bin_b):
            h5 = ctx.tmp / f"same_{len(files)}.h5"
            rc, text, _ = ctx.run([b, "run", model, "--tfinal", "50", "--solver", s, "-o", h5], 200)
            files.append(h5 if rc == 0 and h5.exists() else None)
        if None in files:
            ctx.log(f"{bin_a.name} and {bin_b.name}, {s}: a run FAILED")
            ok = False
            continue
        same = files[0].read_bytes() == files[1].read_bytes()
        if same:
            verdict = f"outputs byte-identical ({files[0].stat().st_size} bytes)"
        else:  # another writer may lay the same data out otherwise: compare every dataset and attribute
            same, why = same_h5_data(files[0], files[1])
            verdict = ("data identical, every dataset and attribute bit for bit (the files' layouts differ)"
                       if same else f"outputs DIFFER ({why})")
        ctx.log(f"{bin_a.name} and {bin_b.name}, {s}: {verdict}")
        ok = ok and same
    return 0 if ok else 1


@step("compare-solvers", "SOLVERS [--cells N] [--tfinal MS]",
      "`arbolito compare` of busyring 256 cells x 50 ms with soma traces between SOLVERS (max |dV|, spikes)",
      positional=(1, 1), options=("cells", "tfinal"))
def step_compare_solvers(ctx, a):
    model = ctx.busyring_model(int(a.opt.get("cells", 256)), "bench/models/busyring64.json", record=True)
    f = ctx.file("compare", ".txt")
    solvers = ",".join(a.pos[0].replace(",", " ").split())
    rc, text, s = ctx.run([ctx.bin("arbolito"), "compare", model, "--tfinal", a.opt.get("tfinal", "50"),
                           "-o", ctx.tmp / "compare", "--solvers", solvers], 300, f)
    ctx.log(f"compare {a.pos[0]}: rc {rc} in {s:.0f} s ({f.name})")
    lines = text.splitlines()
    start = next((i for i, x in enumerate(lines) if x.startswith("solver ")), None)
    if start is not None:
        ctx.log(*("  " + x for x in lines[start:start + 1 + len(a.pos[0].split(","))]))
    return 0 if rc == 0 else 1


@step("ab", "BASE SOLVERS [CELLS] [TFINAL] [--rounds N]",
      "this arbolito against the packed binary BASE, alternating, busyring (default 8,192 cells x 50 ms, 2 "
      "rounds): per cells and solver the median run and kernel seconds of each and their ratio",
      positional=(2, 4), options=("rounds",))
def step_ab(ctx, a):
    base, solvers = ctx.bin(a.pos[0]), a.pos[1].split()
    cells, tfinal, rounds = ints(a.at(2, "8192"), "ab CELLS"), a.at(3, "50"), int(a.opt.get("rounds", 2))
    tsv = {"new": ctx.file("ab_new", ".tsv"), "base": ctx.file("ab_base", ".tsv")}
    rows = {"new": [], "base": []}
    for _ in range(rounds):
        for label, b in (("new", ctx.bin("arbolito")), ("base", base)):
            rows[label] += busyring_table(ctx, cells, solvers, tfinal, tsv[label], b)
    ctx.log(f"ab: arbolito against {base.name}, {tfinal} ms, {rounds} rounds ({tsv['new'].name}, {tsv['base'].name})")
    table, ok = [], True
    for c in cells:
        for s in solvers:
            med = {}
            for label in rows:
                got = [r for r in rows[label] if r["cells"] == str(c) and r["solver"] == s and "failed" not in r]
                ok = ok and len(got) == rounds
                med[label] = [median([float(r[k]) for r in got]) for k in ("run_s", "kernel_s")]
            table.append([c, s, "%.4f / %.4f" % tuple(med["new"]), "%.4f / %.4f" % tuple(med["base"]),
                          "%.4f" % (med["new"][0] / med["base"][0])])
    ctx.table(["cells", "solver", "new run / kernel s", "base run / kernel s", "new/base run"], table)
    return 0 if ok else 1


# ---------------------------------------------------------------------------------------------
# Solve-alone benchmarks

@step("branch-study", "[BUDGET_S]",
      "branch_bench's whole study (every set and variant, 256 to 25,600 cells, median of 7; sets past BUDGET_S "
      "seconds, default 200, skipped) into study.tsv and study_summary.txt, the summary into the log",
      positional=(0, 1))
def step_branch_study(ctx, a):
    budget = float(a.at(0, "200"))
    tsv, summary = ctx.file("study", ".tsv"), ctx.file("study_summary", ".txt")
    rc, text, s = ctx.run([ctx.bin("branch_bench"), "--cells", "256,2560,25600", "--reps", "7", "--budget-s", budget,
                           "--tsv", tsv, "--summary", summary], budget + 60, ctx.file("study", ".out"))
    ctx.log(f"branch study: rc {rc} in {s:.0f} s ({tsv.name}, {summary.name})")
    if summary.exists():
        ctx.log(*summary.read_text().splitlines())
    return 0 if rc == 0 else 1


def branch_bench(ctx, binary, cells, sets, variants, reps):
    """branch_bench's rows (dicts of its TSV) for CELLS x SETS x VARIANTS."""
    tsv = ctx.tmp / f"branch_{time.monotonic_ns()}.tsv"
    rc, text, _ = ctx.run([binary, "--cells", cells, "--sets", sets, "--variants", variants, "--reps", reps,
                           "--tsv", tsv], 300)
    if not tsv.exists():
        ctx.log(f"  {binary.name} rc {rc}: {text.strip()[-300:]}")
        return []
    lines = tsv.read_text().splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, x.split("\t"))) for x in lines[1:]]


@step("branch-bench", "CELLS SETS VARIANTS [REPS] [--bins A,B] [--rounds N]",
      "branch_bench's solve alone (median of REPS, default 9) for the lists given (e.g. 2560,25600 multi,deep "
      "gpu-cell,edd-c32-t1536), ns per CV; --bins: packed branch_bench binaries alternated, ROUNDS rounds",
      positional=(3, 4), options=("bins", "rounds"))
def step_branch_bench(ctx, a):
    bins = [ctx.bin(b) for b in a.opt.get("bins", "branch_bench").split(",")]
    rounds = int(a.opt.get("rounds", 1))
    table, ok = [], True
    for r in range(rounds):
        for b in bins:
            rows = branch_bench(ctx, b, a.pos[0], a.pos[1], a.pos[2], a.at(3, "9"))
            ok = ok and bool(rows)
            table += [[r + 1, b.name, x["set"], x["cells"], x["variant"], x["ms"], x["ns_per_cv"], x["floor_x"]]
                      for x in rows]
    ctx.log(f"branch_bench {a.pos[0]} {a.pos[1]} {a.pos[2]}:")
    ctx.table(["round", "binary", "set", "cells", "variant", "ms", "ns/CV", "x floor"], table)
    return 0 if ok else 1


@step("thomas", "[N] [NSYS] [REPS]",
      "thomas_bench: batched Thomas against cuSPARSE (default n 64,512 x 2560,25600,256000 systems, median of "
      "20), its summary into the log", positional=(0, 3))
def step_thomas(ctx, a):
    summary = ctx.file("thomas_summary", ".txt")
    rc, text, s = ctx.run([ctx.bin("thomas_bench"), "--n", a.at(0, "64,512"), "--nsys", a.at(1, "2560,25600,256000"),
                           "--reps", a.at(2, "20"), "--summary", summary], 300, ctx.file("thomas", ".out"))
    ctx.log(f"thomas_bench: rc {rc} in {s:.0f} s")
    if summary.exists():
        ctx.log(*summary.read_text().splitlines())
    return 0 if rc == 0 else 1


@step("thomas-regression", "[REPS]",
      "the batched Thomas tests, then thomas_regression_bench (the double kernel of bench/thomas_baseline.cuh "
      "against thomas_batch, medians of REPS, default 21, interleaved; float tunings) into thomas_regression.tsv",
      positional=(0, 1))
def step_thomas_regression(ctx, a):
    rc1, text, s = ctx.run([ctx.bin("gpu_tests"), "--gtest_filter=ThomasBatch.*:ThomasVariants.*"], 60,
                           ctx.file("thomas_tests", ".log"))
    ctx.log(f"Thomas tests: rc {rc1} in {s:.0f} s", *("  " + x for x in grep(text, r"^\[  (PASSED|FAILED)|Failure")))
    tsv = ctx.file("thomas_regression", ".tsv")
    rc2, text, s = ctx.run([ctx.bin("thomas_regression_bench"), "--reps", a.at(0, "21"), "--tsv", tsv], 120,
                           ctx.file("thomas_regression", ".log"))
    ctx.log(f"thomas_regression_bench: rc {rc2} in {s:.0f} s ({tsv.name})", *(x[:160] for x in text.splitlines()))
    return 0 if rc1 == 0 and rc2 == 0 else 1


@step("solver-bench", "[SIZES] [CLASSES] [REPS] [--cpu]",
      "gpu_solver_bench: gpu-cell's solve alone per cell class and layout (default 256,000 cells, every class, "
      "median of 10; --cpu: with the OpenMP baseline on the host's cores) into solver_bench.tsv, its summary "
      "into the log", positional=(0, 3), flags=("cpu",))
def step_solver_bench(ctx, a):
    tsv, summary = ctx.file("solver_bench", ".tsv"), ctx.file("solver_summary", ".txt")
    classes = a.at(1, "")
    rc, text, s = ctx.run([ctx.bin("gpu_solver_bench"), "--sizes", a.at(0, "256000"),
                           *(["--classes", classes] if classes else []), "--reps", a.at(2, "10"),
                           *([] if a.opt.get("cpu") else ["--no-cpu"]), "--tsv", tsv, "--summary", summary], 500,
                          ctx.file("solver_bench", ".log"))
    ctx.log(f"gpu_solver_bench: rc {rc} in {s:.0f} s ({tsv.name})")
    if summary.exists():
        ctx.log(*summary.read_text().splitlines())
    return 0 if rc == 0 else 1


def passthrough(ctx, name, tokens, limit, extra=()):
    f = ctx.file(name, ".log")
    rc, text, s = ctx.run([ctx.bin(name), *tokens, *extra], limit, f)
    ctx.log(f"{name} {' '.join(tokens)}: rc {rc} in {s:.0f} s ({f.name})", *text.splitlines()[-40:])
    return 0 if rc == 0 else 1


@step("step-bench", "[ARGS...]", "gpu_step_bench with ARGS (its own options, e.g. --cells 1024 --synapses 1000 "
      "--tfinal 10): copy bandwidth, bytes per CV, point sums; the output's tail into the log", positional=None)
def step_step_bench(ctx, a):
    return passthrough(ctx, "gpu_step_bench", a.pos, 300)


@step("fine-bench", "[ARGS...]", "fine_bench with ARGS (e.g. --cells 64,1024 --no-anchor): gpu-fine's solve alone, "
      "fine_bench.tsv beside the log", positional=None)
def step_fine_bench(ctx, a):
    return passthrough(ctx, "fine_bench", a.pos, 500, ["--tsv", ctx.file("fine_bench", ".tsv")])


@step("seed-variants", "[ARGS...]", "seed_variants_bench with ARGS (e.g. --reps 10 --cells 256000,25600 "
      "--budget-s 120): the published cuThomasBatch and cuHinesBatch variants, seed_variants.tsv beside the log", positional=None)
def step_seed_variants(ctx, a):
    return passthrough(ctx, "seed_variants_bench", a.pos, 500, ["--tsv", ctx.file("seed_variants", ".tsv")])


@step("chain", "[ROWS...]", "chain_latency_bench: cycles per row of the sweeps' dependent chains, by the SM's "
      "clock (default 16 and 64 rows)", positional=(0, 8))
def step_chain(ctx, a):
    rc = 0
    for rows in a.pos or ["16", "64"]:
        rc = max(rc, passthrough(ctx, "chain_latency_bench", ["--rows", rows], 60))
    return rc


# ---------------------------------------------------------------------------------------------
# Profiles

@step("profile", "SOLVERS [--cells N] [--tfinal MS]",
      "the resident kernel's phase clock (arbolito-prof from bench/resident_profile.sh, packed beside the "
      "others), busyring 8,192 cells x 20 ms with each solver", positional=(1, 1), options=("cells", "tfinal"))
def step_profile(ctx, a):
    model = ctx.busyring_model(int(a.opt.get("cells", 8192)))
    ok = True
    for s in a.pos[0].split():
        rc, text, _ = ctx.run([ctx.bin("arbolito-prof"), "run", model, "--tfinal", a.opt.get("tfinal", "20"),
                               "--solver", s, "--spikes-only", "-o", ctx.tmp / "prof.h5"], 120)
        ctx.log(f"profile {s}: rc {rc}", *grep(text, "resident profile", 60))
        ok = ok and rc == 0
    return 0 if ok else 1


NCU_METRICS = ("sm__sass_thread_inst_executed_op_dfma_pred_on.sum,sm__sass_thread_inst_executed_op_dmul_pred_on.sum,"
               "sm__sass_thread_inst_executed_op_dadd_pred_on.sum,gpu__time_duration.sum,dram__bytes.sum")


@step("ncu-resident", "[--cells N] [--solver S] [--source] [--sass]",
      "Nsight Compute on one 100-step epoch kernel of busyring (8,192 cells) with the resident step (or solver S, "
      "a resident one): time, FP64 instructions, occupancy, warp stalls, memory; --source: also the source "
      "counters (the top stall locations, by source line); --sass: the source counters per SASS instruction "
      "(warp stall samples by reason) into ncu_sass.csv.gz; ncu.txt, its main lines into the log",
      flags=("source", "sass"), options=("cells", "solver"))
def step_ncu_resident(ctx, a):
    model = ctx.busyring_model(int(a.opt.get("cells", 8192)))
    f = ctx.file("ncu", ".txt")
    sass = bool(a.opt.get("sass"))
    source = ["--section", "SourceCounters"] if a.opt.get("source") or sass else []
    report = ctx.tmp / "ncu_resident"
    save = ["-o", report] if sass else []
    solver = a.opt.get("solver", "gpu-fine:step=resident")
    rc, text, s = ctx.run(["ncu", "--clock-control", "none", "-k", "regex:resident_kernel", "--launch-skip", "1",
                           "--launch-count", "1", "--section", "SpeedOfLight", "--section", "Occupancy", "--section",
                           "LaunchStats", "--section", "WarpStateStats", "--section", "MemoryWorkloadAnalysis",
                           *source, *save, "--metrics", NCU_METRICS, ctx.bin("arbolito"), "run", model, "--tfinal",
                           "8", "--solver", solver, "--spikes-only", "-o", ctx.tmp / "ncu.h5"], 200, f)
    if sass and rc == 0:  # the saved report: its details as the text, its SASS page as CSV
        rep = str(report) + ".ncu-rep"
        rc, text, _ = ctx.run(["ncu", "--import", rep, "--page", "details"], 120, f)
        csv = ctx.file("ncu_sass", ".csv")
        rc2, _, _ = ctx.run(["ncu", "--import", rep, "--page", "source", "--csv", "--print-source", "sass"], 300, csv)
        subprocess.run(["gzip", "-f", str(csv)])
        ctx.log(f"ncu sass page: rc {rc2} ({csv.name}.gz)")
    ctx.log(f"ncu resident {solver}: rc {rc} in {s:.0f} s ({f.name})",
            *grep(text, r"Duration|dfma|dmul|dadd|dram__bytes|Warp Cycles Per Issued|Avg. Active Threads|Stall|"
                        r"Achieved Occupancy|Theoretical Occupancy|Block Limit|Registers Per|L2 Hit|L1/TEX Hit|"
                        r"DRAM Throughput|Compute \(SM\)", 40))
    return 0 if rc == 0 else 1


@step("ncu-branch", "KERNEL_REGEX COUNT [--cells N] [--set S] [--variant V]",
      "Nsight Compute's time and bytes of the first COUNT kernels matching KERNEL_REGEX in one branch_bench solve "
      "(default 25,600 deep cells, EDD)", positional=(2, 2), options=("cells", "set", "variant"))
def step_ncu_branch(ctx, a):
    f = ctx.file("ncu_branch", ".txt")
    rc, text, s = ctx.run(["ncu", "--metrics", "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,"
                           "lts__t_sectors.sum", "-k", f"regex:{a.pos[0]}", "--launch-count", a.pos[1],
                           ctx.bin("branch_bench"), "--cells", a.opt.get("cells", "25600"), "--sets",
                           a.opt.get("set", "deep"), "--variants", a.opt.get("variant", "edd"), "--reps", "1"], 200, f)
    ctx.log(f"ncu branch: rc {rc} in {s:.0f} s ({f.name})",
            *(re.sub(r"\(int, .*\) \(", "(", x) for x in grep(text, f"{a.pos[0]}|duration|bytes|sectors", 60)))
    return 0 if rc == 0 else 1


# ---------------------------------------------------------------------------------------------
# Parareal and set-up

@step("parareal", "[--budget S] [--parts gpu,host]",
      "parareal on the GPU machine (bench/parareal_study.sh, docs/parareal.md), in about --budget seconds "
      "(default 82): PararealGpu tests; gpu-fine with G on one host core, the 10,004-CV cable (K 64, coarse-cvs "
      "1 and 10; K 128, coarse-cvs 10) and the L5 cell (K 16, coarse-cvs 10 and 1); omp on every host core, the "
      "cable (K 16, 32) and the L5 cell; parareal_gpu.tsv, parareal_host.tsv", options=("budget", "parts"))
def step_parareal(ctx, a):
    parts_wanted = a.opt.get("parts", "gpu,host").split(",")
    rc = 0
    if "gpu" in parts_wanted:
        rc, text, s = ctx.run([ctx.bin("gpu_tests"), "--gtest_filter=PararealGpu.*"], 60,
                              ctx.file("parareal_tests", ".log"))
        ctx.log(f"PararealGpu tests: rc {rc} in {s:.0f} s",
                *("  " + x for x in grep(text, r"^\[  (PASSED|FAILED)|Failure")))
    scale = float(a.opt.get("budget", 82)) / 82
    gpu = re.sub(r"\s+", "_", ctx.device() or "gpu")
    n = str(os.cpu_count() or 1)
    tsv_gpu, tsv_host = ctx.file("parareal_gpu", ".tsv"), ctx.file("parareal_host", ".tsv")
    # part: label, seconds, study arguments: OUT LABEL SOLVER THREADS "K..." "C..." BUDGET MAX_CV G "F..." MIN_CV
    fine, host = [tsv_gpu, gpu, "gpu-fine:timing=off", "1"], [tsv_host, f"host_{n}_cores", "omp", n]
    parts = [("gpu cable", 22, fine + ["64", "10", "12", "11000", "cpu", "1 10", "10000"]),
             ("gpu cable K128", 12, fine + ["128", "10", "4", "11000", "cpu", "10", "10000"]),
             ("gpu L5 cell", 14, fine + ["16", "10", "8", "16000", "cpu", "10 1", "15000"]),
             ("host cable", 12, host + ["16 32", "10", "8", "11000", "cpu", "1 10", "10000"]),
             ("host L5 cell", 14, host + ["16", "10", "7", "16000", "cpu", "10 1", "15000"])]
    ok = rc == 0
    for label, limit, args in parts:
        if label.split()[0] not in parts_wanted:
            continue
        args[6] = str(max(1, int(float(args[6]) * scale)))  # the study counts whole seconds
        rcp, text, s = ctx.run(["bash", "bench/parareal_study.sh", ctx.bin("arbolito"), *args], limit * scale,
                               ctx.file("parareal_" + label.replace(" ", "_"), ".log"))
        ctx.log(f"parareal {label}: rc {rcp} in {s:.0f} s", *(x[:220] for x in text.splitlines()))
        ok = ok and rcp in (0, 124)
    return 0 if ok else 1


@step("setup-scale", "OLD [NEW] [CELLS] [THREADS] [REPS]",
      "bench/setup_scale.sh: busyring's set-up, whole process and peak memory for two packed arbolito binaries "
      "side by side (default NEW arbolito, 32,768 cells, every host core, 2 rounds)", positional=(1, 5))
def step_setup_scale(ctx, a):
    old, new = ctx.bin(a.pos[0]), ctx.bin(a.at(1, "arbolito"))
    f = ctx.file("setup_scale", ".log")
    rc, text, s = ctx.run(["bash", "bench/setup_scale.sh", old, new, a.at(2, "32768"),
                           a.at(3, str(os.cpu_count() or 1)), a.at(4, "2")], 500, f)
    ctx.log(f"setup_scale: rc {rc} in {s:.0f} s", *text.splitlines()[-12:])
    return 0 if rc == 0 else 1


# ---------------------------------------------------------------------------------------------
# Several GPUs: ranks (one per GPU, MPICH packed by bench/gpu_pack.sh --mpi) or one process

def mpi_launcher(ctx, ranks):
    """The packed MPICH launcher's command line for RANKS ranks, with the library path its
    ranks need (the GPU machine has no MPI: docs/mpi.md)."""
    mpi = ctx.deps / "mpi"
    exe = mpi / "bin" / "mpiexec"
    if not os.access(exe, os.X_OK):
        raise StepError(f"no packed MPI launcher {exe} (pack with bench/gpu_pack.sh BUILD_DIR --mpi MPI_DIR, "
                        "the build configured with that MPI's mpicc: docs/mpi.md)")
    ld = f"{ctx.deps / 'lib'}:{mpi / 'lib'}:{mpi / 'lib' / 'mpich'}:/usr/local/cuda/lib64"
    return [exe, "-n", str(ranks), "-genv", "LD_LIBRARY_PATH", ld]


@step("mpi", "RANKS ARGS...",
      "`mpiexec -n RANKS arbolito ARGS...` with the packed MPICH (e.g. mpi 4 run examples/ring.json --solver gpu-cell "
      "-o {tmp}/ring.h5 --timeline {out}/ring.csv): its output into the log; {out} in ARGS is the output folder, "
      "{tmp} the run's scratch folder; RANKS 0: one process, no launcher", positional=None)
def step_mpi(ctx, a):
    if not a.pos or not a.pos[0].isdigit():
        raise UsageError("mpi: RANKS ARGS... (RANKS a number)")
    f = ctx.file("mpi", ".log")
    args = [x.replace("{out}", str(ctx.out)).replace("{tmp}", str(ctx.tmp)) for x in a.pos[1:]]
    launcher = mpi_launcher(ctx, a.pos[0]) if a.pos[0] != "0" else []
    rc, text, s = ctx.run(launcher + [ctx.bin("arbolito"), *args], 550, f)
    ctx.log(f"mpiexec -n {a.pos[0]} arbolito {' '.join(a.pos[1:])}: rc {rc} in {s:.1f} s ({f.name})",
            *("  " + x for x in text.strip().splitlines()[-25:]))
    return 0 if rc == 0 else 1


@step("mpi-tests", "RANKS [FILTER]",
      "mpi_tests (packed with gpu_pack.sh --mpi) on RANKS ranks, e.g. 2 'MpiGpu.*' (the ranks share GPU 0): the "
      "verdicts into the log", positional=(1, 2))
def step_mpi_tests(ctx, a):
    filt = a.at(1, "")
    f = ctx.file("mpi_tests", ".log")
    rc, text, s = ctx.run(mpi_launcher(ctx, a.pos[0]) + [ctx.bin("mpi_tests")] +
                          ([f"--gtest_filter={filt}"] if filt else []), 400, f)
    ctx.log(f"mpi_tests on {a.pos[0]} ranks {filt or '(all)'}: rc {rc} in {s:.0f} s ({f.name})",
            *("  " + x for x in grep(text, r"^\[  (PASSED|FAILED|SKIPPED)|Failure|Expected|Which is|rank \d+\]")))
    return 0 if rc == 0 else 1


@step("scaling", "CELLS GPUS [--weak] [--modes \"process ranks\"] [--solver S] [--tfinal MS] [--model FILE] "
      "[--rounds N] [--timeline] [--bin NAME]",
      "busyring (default examples/busyring.json: Arbor's 1,000 unconnected synapses a cell, 200 ms, spikes only) "
      "on each count of GPUS (e.g. \"1 2 4\"): CELLS in all (strong) or per GPU (--weak); mode process: one "
      "process, --gpus N; mode ranks: mpiexec -n N, one rank per GPU (--gpus 1, each rank cores/N - 1 exchange "
      "threads). Per run: run s, ns per CV-step, "
      "speed-up (strong) or efficiency (weak) against 1 GPU of its mode, exposed exchange; the spikes of every "
      "run of one cell count compared bit for bit with the first run's (h5py); --timeline: each run's "
      "--timeline into the output folder (scaling_MODE_NgpuCELLS.csv and its .epochs.csv) and its breakdown (integration "
      "of the mean group, load imbalance, exposed exchange, rest) into the log; --bin: another packed arbolito "
      "(process mode needs no MPI in it)",
      positional=(2, 2), flags=("weak", "timeline"), options=("modes", "solver", "tfinal", "model", "rounds", "bin"))
def step_scaling(ctx, a):
    cells, gpus = int(a.pos[0]), ints(a.pos[1], "scaling GPUS")
    modes = a.opt.get("modes", "process ranks").split()
    if any(m not in ("process", "ranks") for m in modes):
        raise UsageError("scaling --modes: process and/or ranks")
    solver, tfinal = a.opt.get("solver", "gpu-fine:step=resident"), a.opt.get("tfinal", "200")
    base, rounds, weak = a.opt.get("model", "examples/busyring.json"), int(a.opt.get("rounds", 1)), a.opt.get("weak")
    binary = ctx.bin(a.opt.get("bin", "arbolito"))
    ok, rows, first_h5, t1 = True, [], {}, {}
    for r in range(rounds):
        for mode in modes:
            for n in gpus:
                total = cells * n if weak else cells
                model = ctx.busyring_model(total, base)
                h5 = ctx.tmp / f"scaling_{mode}_{n}_{total}_{r}.h5"
                args = ["run", model, "--solver", solver, "--tfinal", tfinal, "--spikes-only", "--timings", "json",
                        "-o", h5]
                if a.opt.get("timeline"):
                    args += ["--timeline", ctx.file(f"scaling_{mode}_{n}gpu_{total}", ".csv")]
                # Ranks: each its share of the host's cores for its exchange (a rank alone would
                # take them all, and N ranks would start N times as many threads as cores).
                share = max(1, (os.cpu_count() or 2) // n - 1)
                cmd = ([binary, *args, "--gpus", n] if mode == "process" else
                       mpi_launcher(ctx, n) + [binary, *args, "--gpus", 1, "--exchange-threads", share])
                f = ctx.file(f"scaling_{mode}_{n}gpu_{total}", ".log")
                rc, text, wall = ctx.run(cmd, 560, f)
                j = last_json(text) if rc == 0 else None
                if j and a.opt.get("timeline"):  # the run's epoch breakdown (run/epoch_times.hpp)
                    ctx.log(f"  {mode} {n} GPUs, {total} cells:",
                            *("    " + x.split("] ", 1)[-1] for x in grep(text, r"epochs: |  (integration|load imbalance|"
                                                                             r"update beyond|exposed exchange|rest of)")))
                if j and j.get("setup_phases"):  # Simulation's set-up passes, rank 0's (--timings json)
                    ctx.log(f"  {mode} {n} GPUs, {total} cells: set-up {j['setup']:.1f} s: " +
                            ", ".join(f"{k} {v:.1f} s" for k, v in j["setup_phases"].items()))
                if not j:
                    ctx.log(f"  {mode} {n} GPUs, {total} cells: FAILED rc {rc} ({f.name})",
                            *("    " + x for x in text.strip().splitlines()[-6:]))
                    ok = False
                    continue
                same = "first"
                if total in first_h5:
                    eq, why = (True, "") if first_h5[total].read_bytes() == h5.read_bytes() else same_h5_data(first_h5[total], h5)
                    same = "same bits" if eq else f"DIFFER ({why})"
                    ok = ok and eq
                else:
                    first_h5[total] = h5
                if n == gpus[0] and r == 0:
                    t1[mode] = j["run"]
                base_t = t1.get(mode)
                gain = "-" if not base_t else ("%.2f" % (base_t / j["run"]) if not weak else "%.0f %%" % (100 * base_t / j["run"]))
                rows.append([mode, n, total, "%.3f" % j["run"], "%.4f" % j["ns_per_cv_step"], gain,
                             "%.3f" % j["exchange_exposed"], "%.3f" % j["setup"], "%.1f" % wall, j["n_spikes"], same])
    ctx.log(f"scaling: {solver}, {tfinal} ms, {'weak: %d cells per GPU' % cells if weak else 'strong: %d cells' % cells}, "
            f"{base}, {binary.name}")
    ctx.table(["mode", "GPUs", "cells", "run s", "ns/CV-step", "efficiency" if weak else "speed-up",
               "exposed s", "set-up s", "wall s", "spikes", "spikes vs first"], rows)
    return 0 if ok else 1


@step("arbor-mpi", "CELLS RANKS [TFINAL] [--weak] [--bin NAME]",
      "Arbor's busyring built with MPI and CUDA (tools/build_arbor_mpi.sh; packed as prebuilt/busyring-mpi) on each "
      "count of RANKS (e.g. \"1 4\"), one rank per GPU (Arbor's find_private_gpu), launched by the packed MPICH: "
      "CELLS in all (strong) or per rank (--weak), .arbor-gpu/params/busyring-1024.json's network otherwise "
      "(1,000 unconnected synapses), TFINAL ms (default 200); model-init, model-run, spikes, speed-up or efficiency",
      positional=(2, 3), flags=("weak",), options=("bin",))
def step_arbor_mpi(ctx, a):
    cells, ranks, tfinal = int(a.pos[0]), ints(a.pos[1], "arbor-mpi RANKS"), float(a.at(2, "200"))
    binary, weak = ctx.bin(a.opt.get("bin", "busyring-mpi")), a.opt.get("weak")
    base = ROOT / ".arbor-gpu" / "params" / "busyring-1024.json"
    if not base.exists():
        raise StepError("arbor-mpi: no .arbor-gpu/params/busyring-1024.json (carry .arbor-gpu)")
    rows, ok, t1 = [], True, None
    for n in ranks:
        total = cells * n if weak else cells
        p = json.loads(base.read_text())
        p.update({"name": f"busyring-mpi-{n}x{total}", "num-cells": total, "duration": tfinal})
        pf = ctx.tmp / f"arbor_mpi_{n}_{total}.json"
        pf.write_text(json.dumps(p))
        f = ctx.file(f"arbor_mpi_{n}rank_{total}", ".log")
        rc, text, wall = ctx.run(mpi_launcher(ctx, n) + [binary, pf], 560, f)
        get = lambda rx: (re.search(rx, text, re.M) or [None, None])[1]
        init, run, spikes = get(r"^model-init\s+([0-9.]+)"), get(r"^model-run\s+([0-9.]+)"), get(r"^(\d+) spikes generated")
        comps, gpu = get(r"(\d+) compartments/rank"), get(r"^gpu:\s+(\w+)")
        if rc != 0 or not run:
            ctx.log(f"  Arbor {n} ranks, {total} cells: FAILED rc {rc} ({f.name})",
                    *("    " + x for x in text.strip().splitlines()[-6:]))
            ok = False
            continue
        t = float(run)
        t1 = t1 or t
        # "compartments/rank" counts rank 0's share (ring.cpp): every rank holds about as many.
        ns = t * 1e9 / (int(comps) * n * round(tfinal / p["dt"])) if comps else float("nan")
        gain = "%.0f %%" % (100 * t1 / t) if weak else "%.2f" % (t1 / t)
        rows.append([n, total, gpu, init, run, "%.4f" % ns, gain, spikes, "%.1f" % wall])
    ctx.log(f"Arbor busyring with MPI: {'weak: %d cells per rank' % cells if weak else 'strong: %d cells' % cells}, "
            f"{tfinal:g} ms, {binary.name}")
    ctx.table(["ranks", "cells", "gpu", "model-init s", "model-run s", "ns/CV-step", "efficiency" if weak else "speed-up",
               "spikes", "wall s"], rows)
    return 0 if ok else 1


# ---------------------------------------------------------------------------------------------
# The speed guard: every GPU solver's whole busyring and the solve-alone benchmarks against
# a reference table recorded on the same kind of device (bench/speed_reference_<device>.tsv).

GUARD_SOLVERS = ["gpu-cell", "gpu-fine", "gpu-fine:step=resident", "gpu-branch:coupling=fold",
                 "gpu-branch:coupling=edd", "gpu-branch:coupling=edd:tile=1536", "auto"]
# Busyring sizes and durations: 100 ms at 1,024 cells keeps the resident step's run (0.3 s)
# long against the host's occasional late exchange (a few ms); 20 ms at 8,192 cells keeps
# the guard's busyring part near two minutes on an H100.
GUARD_BUSYRING = "1024:100 8192:20"
GUARD_BRANCH = {"cells": "2560,25600", "sets": "multi,deep",
                "variants": "gpu-cell,gpu-fine,fold,edd-cut32,edd-c32-t1536", "reps": "9"}
GUARD_THOMAS = {"n": "64,512", "nsys": "25600,256000", "reps": "20"}
REF_COLUMNS = ["bench", "size", "variant", "unit", "median", "min", "max", "samples", "control"]
REF_META = ["device", "date", "commit", "settings"]


class Case:
    """One guarded figure: lower is better."""

    def __init__(self, bench, size, variant, unit, control=False, **how):
        self.bench, self.size, self.variant, self.unit = bench, size, variant, unit
        self.control, self.how = control, how

    @property
    def key(self):
        return (self.bench, self.size, self.variant)


def busyring_size(cells, tfinal):
    return f"{cells} cells x {tfinal} ms"


def guard_cases(busyring_spec):
    cases = []
    for item in busyring_spec.split():
        cells, _, tfinal = item.partition(":")
        if not cells.isdigit() or not tfinal.replace(".", "", 1).isdigit():
            raise UsageError(f"speed-guard --busyring: '{item}' is not CELLS:TFINAL_MS")
        cases += [Case("busyring", busyring_size(cells, tfinal), s, "ns/CV-step", cells=cells, tfinal=tfinal)
                  for s in GUARD_SOLVERS]
    for cells in GUARD_BRANCH["cells"].split(","):
        for s in GUARD_BRANCH["sets"].split(","):
            cases += [Case("branch_bench", f"{s} {cells} cells", v, "ns/CV", cells=cells, set=s)
                      for v in GUARD_BRANCH["variants"].split(",")]
    for n in GUARD_THOMAS["n"].split(","):
        for nsys in GUARD_THOMAS["nsys"].split(","):
            size = f"n {n} x {nsys} systems"
            cases.append(Case("thomas_bench", size, "thomas_batch default", "ns/unknown", n=n, nsys=nsys))
            # cuSPARSE's solve of the same systems: not ours, so it never fails the guard; if it
            # moved as much as ours, the machine did.
            cases.append(Case("thomas_bench", size, "cusparse gtsvInterleaved/0", "ns/unknown", control=True, n=n,
                              nsys=nsys))
    return cases


THOMAS_LINE = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\S.*?)\s+([0-9.]+)\s+([0-9.]+)%\s+\S+\s*$")


def joined_unique(xs):
    """XS comma-separated, each once, in first-seen order (a benchmark's list option)."""
    return ",".join(dict.fromkeys(xs))


def measure(ctx, cases, reps):
    """{case key: [values]} for CASES: busyring REPS rounds interleaved; each benchmark once
    (its figures are already medians of its own repetitions). A failed run leaves no value."""
    wanted = {c.key for c in cases}
    got = {k: [] for k in wanted}
    t = time.monotonic()
    groups = {}
    for c in cases:
        if c.bench == "busyring":
            groups.setdefault((c.how["cells"], c.how["tfinal"]), []).append(c.variant)
    if groups:
        tsv = ctx.file("guard_busyring", ".tsv")
        for _ in range(reps):
            for (cells, tfinal), solvers in groups.items():
                for r in busyring_table(ctx, [cells], solvers, tfinal, tsv):
                    key = ("busyring", busyring_size(r["cells"], r["tfinal_ms"]), r["solver"])
                    if "failed" in r:
                        ctx.log(f"  busyring {r['cells']} {r['solver']}: {r['failed']}")
                    elif key in got:
                        got[key].append(float(r["ns_per_cv_step"]))
        ctx.log(f"  busyring: {sum(len(g) for g in groups.values())} cases x {reps} in {time.monotonic() - t:.0f} s")
    branch = [c for c in cases if c.bench == "branch_bench"]
    if branch:
        t = time.monotonic()
        rows = branch_bench(ctx, ctx.bin("branch_bench"), joined_unique(c.how["cells"] for c in branch),
                            joined_unique(c.how["set"] for c in branch), joined_unique(c.variant for c in branch),
                            GUARD_BRANCH["reps"])
        for r in rows:
            key = ("branch_bench", f"{r['set']} {r['cells']} cells", r["variant"])
            if key in got:
                got[key].append(float(r["ns_per_cv"]))
        ctx.log(f"  branch_bench: {len(branch)} cases in {time.monotonic() - t:.0f} s")
    thomas = [c for c in cases if c.bench == "thomas_bench"]
    if thomas:
        t = time.monotonic()
        rc, text, _ = ctx.run([ctx.bin("thomas_bench"), "--n", joined_unique(c.how["n"] for c in thomas),
                               "--nsys", joined_unique(c.how["nsys"] for c in thomas), "--reps", GUARD_THOMAS["reps"]],
                              300)
        for line in text.splitlines():
            m = THOMAS_LINE.match(line)
            if m:
                n, nsys, ms = int(m.group(1)), int(m.group(2)), float(m.group(4))
                name = re.sub(r"\s*\(.*\)$", "", m.group(3))  # the tuning it resolved to
                key = ("thomas_bench", f"n {n} x {nsys} systems", name)
                if key in got:
                    got[key].append(ms * 1e6 / (n * nsys))
        if rc != 0:
            ctx.log(f"  thomas_bench rc {rc}: {text.strip()[-300:]}")
        ctx.log(f"  thomas_bench: {len(thomas)} cases in {time.monotonic() - t:.0f} s")
    return got


class RefError(Exception):
    pass


def read_reference(path):
    """(meta, {key: row}) of a reference table; RefError names the file, line and reason."""
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as e:
        raise RefError(f"{path}: cannot read the speed reference ({e.strerror}); record one with "
                       f"`python3 bench/gpu_run.py speed-guard --record` on this device") from None
    meta, rows, head = {}, {}, None
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if line.startswith("#"):
            k, _, v = line[1:].strip().partition("\t")
            if k in REF_META:
                meta[k] = v.strip()
            continue
        v = line.split("\t")
        if head is None:
            if v != REF_COLUMNS:
                raise RefError(f"{path}:{i}: the header must be {' '.join(REF_COLUMNS)} (tab-separated)")
            head = v
            continue
        if len(v) != len(REF_COLUMNS):
            raise RefError(f"{path}:{i}: {len(v)} fields, wants {len(REF_COLUMNS)}")
        r = dict(zip(REF_COLUMNS, v))
        try:
            for k in ("median", "min", "max"):
                r[k] = float(r[k])
                if not r[k] > 0:
                    raise ValueError
            r["samples"] = int(r["samples"])
        except ValueError:
            raise RefError(f"{path}:{i}: median, min and max must be positive numbers and samples an integer") from None
        if r["control"] not in ("yes", "no"):
            raise RefError(f"{path}:{i}: control must be yes or no, not '{r['control']}'")
        key = (r["bench"], r["size"], r["variant"])
        if key in rows:
            raise RefError(f"{path}:{i}: {' / '.join(key)} twice")
        rows[key] = r
    if "device" not in meta:
        raise RefError(f"{path}: no '# device<TAB>...' line")
    if not rows:
        raise RefError(f"{path}: no rows")
    return meta, rows


def write_reference(path, meta, cases, got):
    with open(path, "w") as f:
        f.write("# arbolito speed reference: python3 bench/gpu_run.py speed-guard compares with it; "
                "speed-guard --record writes it\n")
        for k in REF_META:
            f.write(f"# {k}\t{meta[k]}\n")
        f.write("\t".join(REF_COLUMNS) + "\n")
        for c in cases:
            xs = got[c.key]
            f.write("\t".join([c.bench, c.size, c.variant, c.unit, "%.6g" % median(xs), "%.6g" % min(xs),
                               "%.6g" % max(xs), str(len(xs)), "yes" if c.control else "no"]) + "\n")


def compare(cases, ref, got, tol):
    """{key: (reference median, now median, ratio, status)}; status: ok, faster, SLOWER, FAILED
    (no figure now), new (no reference)."""
    out = {}
    for c in cases:
        xs, r = got.get(c.key, []), ref.get(c.key)
        now = median(xs) if xs else None
        if r is None:
            out[c.key] = (None, now, None, "new")
        elif now is None:
            out[c.key] = (r["median"], None, None, "FAILED")
        else:
            ratio = now / r["median"]
            status = "SLOWER" if ratio > 1 + tol else "faster" if ratio < 1 - tol else "ok"
            out[c.key] = (r["median"], now, ratio, status)
    return out


def failing(cases, result):
    return [c for c in cases if not c.control and result[c.key][3] in ("SLOWER", "FAILED")]


def device_slug(name):
    m = re.search(r"\b([A-Z]\d{2,3})\b", name)
    return m.group(1).lower() if m else re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "unknown"


@step("speed-guard",
      "[--record] [--reference FILE] [--tolerance F] [--reps N] [--busyring \"CELLS:MS ...\"] [--no-rerun]",
      "every GPU solver's whole busyring (1,024 cells x 100 ms, 8,192 x 20 ms; median of 3 runs) and the "
      "solve-alone benchmarks (branch_bench: 2,560 and 25,600 multi and deep cells; thomas_bench: n 64 and 512 "
      "x 25,600 and 256,000 systems) against bench/speed_reference_<device>.tsv: a table of ratios; a case more "
      "than 5 % slower runs once more, and fails the step if it still is. --record: write the reference "
      "($OUT/speed_reference_<device>.tsv, to be committed in bench/)",
      flags=("record", "no-rerun"), options=("reference", "tolerance", "reps", "busyring"))
def step_speed_guard(ctx, a):
    tol, reps = float(a.opt.get("tolerance", 0.05)), int(a.opt.get("reps", 3))
    cases = guard_cases(a.opt.get("busyring", GUARD_BUSYRING))
    device = ctx.device()
    if not device:
        ctx.log("speed-guard: no GPU (nvidia-smi names none)")
        return 2
    slug = device_slug(device)
    settings = (f"busyring {a.opt.get('busyring', GUARD_BUSYRING)} x {reps} runs; branch_bench {GUARD_BRANCH['cells']} "
                f"{GUARD_BRANCH['sets']} reps {GUARD_BRANCH['reps']}; thomas_bench n {GUARD_THOMAS['n']} nsys "
                f"{GUARD_THOMAS['nsys']} reps {GUARD_THOMAS['reps']}")
    if a.opt.get("record"):
        path = Path(a.opt.get("reference", ctx.out / f"speed_reference_{slug}.tsv"))
        ctx.log(f"speed-guard --record on {device}: {len(cases)} cases")
        got = measure(ctx, cases, reps)
        missing = [" / ".join(c.key) for c in cases if not got[c.key]]
        if missing:
            ctx.log("  no figure for: " + "; ".join(missing) + ": nothing recorded")
            return 1
        stamp = (ctx.prebuilt / "STAMP").read_text() if (ctx.prebuilt / "STAMP").exists() else ""
        commit = re.search(r"repository HEAD when packed: (\S+)", stamp)
        meta = {"device": device, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "commit": (commit.group(1) if commit else "unknown")
                + f" (binaries {stamp.splitlines()[0] if stamp else '?'})",
                "settings": settings}
        write_reference(path, meta, cases, got)
        noisy = [(c, got[c.key]) for c in cases if max(got[c.key]) > (1 + tol) * min(got[c.key])]
        ctx.table(["bench", "size", "variant", "unit", "median", "spread"],
                  [[*c.key, c.unit, "%.5g" % median(got[c.key]),
                    "%.1f %%" % (100 * (max(got[c.key]) / min(got[c.key]) - 1))] for c in cases])
        for c, xs in noisy:
            ctx.log(f"  noisy: {' / '.join(c.key)} spreads {100 * (max(xs) / min(xs) - 1):.1f} % over {len(xs)} runs")
        ctx.log(f"  wrote {path}: commit it as bench/{path.name}")
        return 0
    path = Path(a.opt.get("reference", ROOT / "bench" / f"speed_reference_{slug}.tsv"))
    try:
        meta, ref = read_reference(path)
    except RefError as e:
        ctx.log(f"speed-guard: {e}")
        return 2
    if meta["device"] != device:
        ctx.log(f"speed-guard: {path} was recorded on {meta['device']}, this is {device}: compare only on the same "
                f"device (--reference FILE, or --record one for this device)")
        return 2
    ctx.log(f"speed-guard on {device} against {path.name} ({meta.get('date', '?')}, {meta.get('commit', '?')})")
    if meta.get("settings") not in (None, settings):
        ctx.log(f"  the reference's settings differ: {meta.get('settings')}")
    got = measure(ctx, cases, reps)
    first = compare(cases, ref, got, tol)
    result = dict(first)
    again = failing(cases, first)
    if again and not a.opt.get("no-rerun"):
        ctx.log(f"  once more: {len(again)} cases slower than {100 * tol:.0f} % or without a figure")
        result.update(compare(again, ref, measure(ctx, again, reps), tol))
    fmt = lambda x, f: "-" if x is None else f % x
    ctx.table(["bench", "size", "variant", "unit", "reference", "now", "ratio", "first ratio", "status"],
              [[*c.key, c.unit, fmt(result[c.key][0], "%.5g"), fmt(result[c.key][1], "%.5g"),
                fmt(result[c.key][2], "%.3f"), fmt(first[c.key][2], "%.3f") if c in again else "",
                result[c.key][3] + (" (control)" if c.control else "")] for c in cases])
    with open(ctx.file("speed_guard", ".tsv"), "w") as f:
        f.write("bench\tsize\tvariant\tunit\treference\tnow\tratio\tfirst_ratio\tstatus\tcontrol\n")
        for c in cases:
            r = result[c.key]
            f.write("\t".join([*c.key, c.unit, fmt(r[0], "%.6g"), fmt(r[1], "%.6g"), fmt(r[2], "%.4f"),
                               fmt(first[c.key][2], "%.4f"), r[3], "yes" if c.control else "no"]) + "\n")
    stale = [c for c in ref if c not in {x.key for x in cases}]
    if stale:
        ctx.log(f"  {len(stale)} reference rows this guard no longer measures (re-record): "
                + "; ".join(" / ".join(k) for k in stale))
    if any(result[c.key][3] == "new" for c in cases):
        ctx.log("  cases without a reference row: re-record the reference")
    moved = [c for c in cases if c.control and result[c.key][3] in ("SLOWER", "faster")]
    if moved:
        ctx.log("  a control (cuSPARSE) moved too: the machine may be slower or faster than when recorded")
    bad = failing(cases, result)
    if bad:
        ctx.log(f"speed-guard: FAILED, {len(bad)} cases more than {100 * tol:.0f} % slower (or without a figure) "
                "twice: "
                + "; ".join(" / ".join(c.key) for c in bad))
        return 1
    ctx.log(f"speed-guard: passed ({len(cases)} cases within {100 * tol:.0f} % or faster)")
    return 0


# ---------------------------------------------------------------------------------------------
# Self-test (no GPU): the speed guard end to end on fake binaries that print what the real
# ones print, and its reference table's reader on bad files.

FAKE_COMMON = r'''
import json, os, sys, zlib
def factor(key):
    """The slowdown FAKE_SPEED gives KEY at this, its n-th, measurement (the last repeats)."""
    spec = json.loads(os.environ.get("FAKE_SPEED", "{}"))
    path = os.environ["FAKE_STATE"]
    state = json.load(open(path)) if os.path.exists(path) else {}
    n = state.get(key, 0)
    state[key] = n + 1
    json.dump(state, open(path, "w"))
    fs = spec.get(key, [1.0])
    return fs[min(n, len(fs) - 1)]
def base(key):
    return 0.05 + (zlib.crc32(key.encode()) % 1000) / 1000.0
def arg(name, default=None):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default
'''

FAKE_ARBOLITO = FAKE_COMMON + r'''
model = json.load(open(sys.argv[2]))
cells, tfinal, solver = model["network"]["num-cells"], arg("--tfinal"), arg("--solver")
key = f"busyring|{cells} cells x {tfinal} ms|{solver}"
if key in os.environ.get("FAKE_FAIL", "").split(","):
    sys.exit("arbolito: fake failure")
ns = base(key) * factor(key)
print("set-up 0.1 s")
print(json.dumps({"run": ns * 1e-3, "fused": 0.0, "setup": 0.1, "ns_per_cv_step": ns, "n_cv": 1000, "n_spikes": 9,
                  "n_events": 90, "solver": "gpu-fine:step=resident" if solver == "auto" else solver}))
'''

FAKE_BRANCH_BENCH = FAKE_COMMON + r'''
with open(arg("--tsv"), "w") as f:
    f.write("set\tvariant\tcells\treal_cv\tcvs_per_branch\tlevels\tmax_branch_points\tms\tns_per_cv\tfloor_x"
            "\trel_err\n")
    for cells in arg("--cells").split(","):
        for s in arg("--sets").split(","):
            for v in arg("--variants").split(","):
                key = f"branch_bench|{s} {cells} cells|{v}"
                ns = base(key) * factor(key)
                real_cv = 512 * int(cells)
                f.write(f"{s}\t{v}\t{cells}\t{real_cv}\t30\t4\t7\t{ns * real_cv * 1e-6:.6g}\t{ns:.6g}\t1.5\tnan\n")
'''

FAKE_THOMAS_BENCH = FAKE_COMMON + r'''
print("device: fake\nseed: 1\ndevice-to-device copy (1 GiB, read+write): 2980 GB/s\n")
print("%5s %7s %-28s %9s %7s %10s" % ("n", "nsys", "solver", "ms", "eff%", "max.rel.diff"))
for n in map(int, arg("--n").split(",")):
    for nsys in map(int, arg("--nsys").split(",")):
        for name in ("cusparse gtsvInterleaved/0", "thomas_batch default (K8 R0 T64 W0)",
                     "thomas_batch pf4-smem32 (K4 R32 T64 W0)", "cusparse gtsv2StridedBatch"):
            key = f"thomas_bench|n {n} x {nsys} systems|{name.split(' (')[0]}"
            ms = base(key) * factor(key) * n * nsys * 1e-6
            print("%5d %7d %-28s %9.4f %6.1f%% %10.1e" % (n, nsys, name, ms, 50.0, 1e-16))
'''


def self_test():
    """The speed guard's checks on fake binaries; 0 when every check holds."""
    failures = []

    def check(what, cond):
        print(("ok   " if cond else "FAIL ") + what, flush=True)
        if not cond:
            failures.append(what)

    # In-process: the comparison's bound, the grammar, the device names, the default cases.
    one = [Case("b", "s", "v", "ns")]
    ref = {("b", "s", "v"): {"median": 1.0}}
    status = lambda xs: compare(one, ref, {one[0].key: xs} if xs else {}, 0.05)[one[0].key][3]
    check("ratio exactly 1 + tolerance passes", status([1.05]) == "ok")
    check("just past it fails", status([1.0501]) == "SLOWER")
    check("the median of the runs counts", status([2.0, 1.01, 0.99]) == "ok")
    check("no figure is FAILED", status([]) == "FAILED")
    check("device names: H100", device_slug("NVIDIA H100 80GB HBM3") == "h100")
    check("device names: H200", device_slug("NVIDIA H200") == "h200")
    plan = split_steps(["tests", "", "Gpu.*", "busyring", "1024 8192", "gpu-cell", "50", "--arbor", "speed-guard"])
    check("steps split at step names", [(s.name, t) for s, t in plan] ==
          [("tests", ["", "Gpu.*"]), ("busyring", ["1024 8192", "gpu-cell", "50", "--arbor"]), ("speed-guard", [])])
    try:
        STEPS["busyring"].parse(["1024", "gpu-cell", "--arborr"])
        check("an unknown option is refused", False)
    except UsageError as e:
        check("an unknown option is refused", "--arborr" in str(e))
    an = STEPS["allen-network"].parse(["10000", "1000", "--solvers", "gpu-cell gpu-fine", "--no-host", "--host-tfinal", "50"])
    check("allen-network: cells, duration, solvers, flags", an.pos == ["10000", "1000"] and an.opt ==
          {"solvers": "gpu-cell gpu-fine", "no-host": True, "host-tfinal": "50"})
    check("allen-network: no arguments take the defaults", STEPS["allen-network"].parse([]).pos == [])
    for bad, why in ((["1", "2", "3"], "3 arguments"), (["100", "--arbr", "x"], "--arbr"), (["100", "--solvers"], "needs a value")):
        try:
            STEPS["allen-network"].parse(bad)
            check(f"allen-network refuses {bad}", False)
        except UsageError as e:
            check(f"allen-network refuses {bad}", why in str(e))
    plan = split_steps(["allen-network", "2000", "200", "--no-host", "busyring", "1024", "gpu-cell"])
    check("allen-network splits from the next step", [(x.name, t) for x, t in plan] ==
          [("allen-network", ["2000", "200", "--no-host"]), ("busyring", ["1024", "gpu-cell"])])
    cases = guard_cases(GUARD_BUSYRING)
    check("the default guard: 14 busyring, 20 branch_bench, 8 thomas_bench cases",
          [sum(c.bench == b for c in cases) for b in ("busyring", "branch_bench", "thomas_bench")] == [14, 20, 8])

    with tempfile.TemporaryDirectory(prefix="gpu_run_self_test.") as tmp:
        tmp = Path(tmp)
        deps, fakebin = tmp / "deps", tmp / "bin"
        (deps / "prebuilt").mkdir(parents=True)
        (deps / "lib").mkdir()
        fakebin.mkdir()
        for name, text in (("arbolito", FAKE_ARBOLITO), ("branch_bench", FAKE_BRANCH_BENCH),
                           ("thomas_bench", FAKE_THOMAS_BENCH)):
            p = deps / "prebuilt" / name
            p.write_text(f"#!{sys.executable}\n" + text)
            p.chmod(0o755)
        (deps / "prebuilt" / "STAMP").write_text("built by the self-test\nrepository HEAD when packed: 0000000\n")
        smi = fakebin / "nvidia-smi"
        smi.write_text("#!/bin/sh\necho \"${FAKE_GPU:-NVIDIA H100 80GB HBM3}\"\n")
        smi.chmod(0o755)
        small = ["--busyring", "64:10"]

        def runner(name, args, speed=None, fail="", gpu=None):
            out = tmp / name
            env = dict(os.environ, PATH=f"{fakebin}:{os.environ.get('PATH', '')}",
                       FAKE_STATE=str(tmp / f"{name}.state"), FAKE_SPEED=json.dumps(speed or {}), FAKE_FAIL=fail)
            env.pop("OUT", None)
            if gpu:
                env["FAKE_GPU"] = gpu
            p = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--out", str(out), "--deps", str(deps),
                                "--budget", "300", *args], env=env, capture_output=True, text=True, timeout=300)
            log = (out / "gpu_run.log").read_text() if (out / "gpu_run.log").exists() else ""
            table = {}
            if (out / "speed_guard.tsv").exists():
                for line in (out / "speed_guard.tsv").read_text().splitlines()[1:]:
                    v = line.split("\t")
                    table["|".join(v[:3])] = v
            return p.returncode, log + p.stderr, table

        rc, log, _ = runner("record", ["speed-guard", "--record", "--reps", "2", *small])
        refp = tmp / "record" / "speed_reference_h100.tsv"
        check("--record writes the reference", rc == 0 and refp.exists())
        meta, rows = read_reference(refp)
        check("the reference reads back: 7 busyring, 20 branch_bench, 8 thomas_bench rows, 2 runs each busyring",
              len(rows) == 35 and meta["device"] == "NVIDIA H100 80GB HBM3"
              and all(r["samples"] == (2 if r["bench"] == "busyring" else 1) for r in rows.values())
              and meta["commit"].startswith("0000000"))
        guard = ["speed-guard", "--reference", str(refp), "--reps", "1", *small]

        rc, log, t = runner("same", guard)
        check("the same speed passes", rc == 0 and len(t) == 35 and all(v[8] == "ok" for v in t.values()))
        k = "busyring|64 cells x 10 ms|gpu-fine"
        rc, log, t = runner("once", guard, speed={k: [1.08, 1.0]})
        check("8 % slower once, then not: passes after the second run",
              rc == 0 and t[k][8] == "ok" and abs(float(t[k][7]) - 1.08) < 0.01 and "once more: 1 cases" in log)
        k = "branch_bench|deep 25600 cells|edd-c32-t1536"
        rc, log, t = runner("slower", guard, speed={k: [1.08]})
        check("8 % slower twice fails", rc == 1 and t[k][8] == "SLOWER" and "FAILED, 1 cases" in log)
        k = "thomas_bench|n 512 x 256000 systems|thomas_batch default"
        rc, log, t = runner("faster", guard, speed={k: [0.9]})
        check("10 % faster passes, marked faster", rc == 0 and t[k][8] == "faster")
        k = "thomas_bench|n 64 x 25600 systems|cusparse gtsvInterleaved/0"
        rc, log, t = runner("control", guard, speed={k: [1.2]})
        check("a slower control (cuSPARSE) does not fail, and is named", rc == 0 and t[k][8] == "SLOWER"
              and "control (cuSPARSE) moved" in log)
        k = "busyring|64 cells x 10 ms|gpu-branch:coupling=edd:tile=1536"
        rc, log, t = runner("fail", guard, fail=k)
        check("a run that fails fails the guard", rc == 1 and t[k][8] == "FAILED")
        rc, log, _ = runner("device", guard, gpu="NVIDIA H200")
        check("another device's reference is refused (exit 2)", rc == 2 and "recorded on NVIDIA H100" in log)
        rc, log, _ = runner("noref", ["speed-guard", "--reps", "1", *small], gpu="NVIDIA Z999 test")
        check("no reference for this device: exit 2, says how to record one",
              rc == 2 and "speed_reference_z999.tsv" in log and "--record" in log)
        lines = refp.read_text().splitlines()
        bad = tmp / "bad.tsv"
        bad.write_text("\n".join(lines[:7] + [lines[7].replace("\tno", "\tmaybe")] + lines[8:]) + "\n")
        rc, log, _ = runner("bad", ["speed-guard", "--reference", str(bad), *small])
        check("a malformed reference: exit 2 naming file and line", rc == 2 and f"{bad}:8: control must be" in log)
        row6 = lines[6].split("\t")
        for text, why in (("\n".join(lines[:5]) + "\nbench\tsize\n", "the header must be"),
                          ("\n".join(lines + [lines[6]]) + "\n", "twice"),
                          ("\n".join(lines[:6] + [lines[6].replace("\t", "\tx\t", 1)]) + "\n", "fields, wants 9"),
                          ("\n".join(lines[:6] + ["\t".join(row6[:4] + ["0"] + row6[5:])]) + "\n", "positive numbers")):
            bad.write_text(text)
            try:
                read_reference(bad)
                check(f"refused: {why}", False)
            except RefError as e:
                check(f"refused: {why}", why in str(e) and str(bad) in str(e))
        rc, log, _ = runner("usage", ["speed-guard", "--tolerence", "0.1"])
        check("a misspelt option: exit 2 before anything runs", rc == 2 and "--tolerence" in log
              and not (tmp / "usage" / "gpu_run.log").exists())
    print(f"self-test: {'passed' if not failures else f'{len(failures)} checks FAILED'}")
    return 0 if not failures else 1


# ---------------------------------------------------------------------------------------------

def usage():
    lines = [__doc__.strip(), "", "Steps:"]
    for s in STEPS.values():
        lines += [f"  {s.name} {s.usage}", *("      " + x for x in wrap(s.doc, 86))]
    lines += ["  self-test",
              "      the speed guard's comparison and reference checks on fake binaries (no GPU; CI runs it)"]
    lines += ["", "Example (one device call):",
              "  python3 bench/gpu_run.py tests sanitize 'GpuBranch.*' 'GpuBranch.EddTiles*' \\",
              "      busyring \"1024 8192\" \"gpu-fine:step=resident auto\" 200 --arbor speed-guard"]
    return "\n".join(lines)


def wrap(text, width):
    out, line = [], ""
    for w in text.split():
        if line and len(line) + 1 + len(w) > width:
            out.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    return out + ([line] if line else [])


def main(argv):
    opts = {"out": os.environ.get("OUT") or str(ROOT / "bench" / "out" / "gpu_run"), "deps": str(ROOT / ".gpu_deps"),
            "budget": "590"}
    tokens = list(argv)
    while tokens and tokens[0].lstrip("-") in opts and tokens[0].startswith("--"):
        if len(tokens) < 2:
            print(f"gpu_run.py: {tokens[0]} needs a value", file=sys.stderr)
            return 2
        opts[tokens[0][2:]] = tokens[1]
        tokens = tokens[2:]
    if not tokens or tokens[0] in ("help", "-h", "--help"):
        print(usage())
        return 0 if tokens else 2
    if tokens == ["self-test"]:
        return self_test()
    try:
        plan = [(s, s.parse(t)) for s, t in split_steps(tokens)]
        budget = float(opts["budget"])
    except (UsageError, ValueError) as e:
        print(f"gpu_run.py: {e}", file=sys.stderr)
        return 2
    ctx = Ctx(opts["out"], opts["deps"], budget)
    smi = subprocess.run("nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader", shell=True,
                         capture_output=True, text=True).stdout.strip()
    cpu = subprocess.run("lscpu | sed -n 's/^Model name: *//p'", shell=True, capture_output=True,
                         text=True).stdout.strip()
    ctx.log(f"== gpu_run.py {' '.join(tokens)}", f"date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
            f"device: {smi or 'no nvidia-smi'}; host: {os.cpu_count()} cores, {cpu}", f"binaries: {ctx.stamp()}")
    for z in ctx.prebuilt.glob("*.gz"):  # extra binaries travel gzipped (the carry limit)
        subprocess.run(["gunzip", "-f", str(z)])
        z.with_suffix("").chmod(0o755)
    for z in (ctx.deps / "mpi" / "lib").glob("*.gz"):  # libmpi, gzipped by gpu_pack.sh where the carry needs it
        subprocess.run(["gunzip", "-f", str(z)])
    if (ctx.deps / "lib.tgz").exists():  # the shared libraries as one archive, where the carry needs it
        (ctx.deps / "lib").mkdir(exist_ok=True)
        subprocess.run(["tar", "xzf", str(ctx.deps / "lib.tgz"), "-C", str(ctx.deps / "lib")], check=True)
    codes = []
    for s, a in plan:
        t = time.monotonic()
        if ctx.left() < 10:
            ctx.log(f"== {s.name}: skipped, the budget ({budget:.0f} s) is spent")
            codes.append((s.name, 1, 0))
            continue
        words = [repr(x) if (" " in x or not x) else x for x in a.pos]
        words += [f"--{k}" + ("" if v is True else f" {v}") for k, v in a.opt.items()]
        ctx.log(" ".join(["==", s.name, *words]))
        try:
            code = s.func(ctx, a)
        except (StepError, UsageError) as e:
            ctx.log(f"{s.name}: {e}")
            code = 2 if isinstance(e, UsageError) else 1
        except Exception as e:  # a bug of this runner's: the call's other steps still run
            ctx.log(f"{s.name}: runner error {type(e).__name__}: {e}")
            code = 1
        codes.append((s.name, code, time.monotonic() - t))
    shutil.rmtree(ctx.tmp, ignore_errors=True)
    verdict = {0: "ok", 1: "FAILED", 2: "BAD INPUT"}
    ctx.log("== done in %.0f s: " % (time.monotonic() - ctx.t0) +
            ", ".join(f"{n} {verdict[c]} ({s:.0f} s)" for n, c, s in codes))
    return max(c for _, c, _ in codes)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
