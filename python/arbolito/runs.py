"""Running models: run() returns the record in memory, compare() runs several solvers."""
import math
import os
import threading

import numpy as np

from . import _arbolito
from .model import as_model
from .progress import make_progress


class Stopped(KeyboardInterrupt):
    """A run stopped by SIGINT (Ctrl-C) or SIGTERM, as the command line stops: at an epoch
    boundary, within a step. `result` holds what it recorded up to result.t_end (its
    SONATA file, if one was asked for, kept as <output>.partial)."""

    def __init__(self, message, result):
        super().__init__(message)
        self.result = result


class Spikes:
    """Spikes in the output's order (time, then gid, then detector): gids (uint64),
    sources (the detector on the cell, uint32), times (ms, float64)."""

    def __init__(self, gids, sources, times):
        self.gids, self.sources, self.times = gids, sources, times

    def __len__(self):
        return len(self.times)

    def of(self, gid):
        """The spike times of one cell."""
        return self.times[self.gids == gid]

    def __repr__(self):
        return f"Spikes({len(self)} spikes)"


class Traces:
    """Traces: `time` (ms, n_frames) and `data` (n_frames x n_columns), one column per
    probe, in the SONATA report's order. `variables` says what each records ("v" in mV,
    "NaTs.ina" in mA/cm2, "ca.xi" in mM, ...); a column is named "GID:BRANCH:X" where it
    records v, else "GID:BRANCH:X:VARIABLE" (`columns`; gids, branches and positions as
    arrays too)."""

    def __init__(self, time, data, gids, branches, positions, variables=None):
        self.time, self.data = time, data
        self.gids, self.branches, self.positions = gids, branches, positions
        self.variables = list(variables) if variables is not None else ["v"] * len(gids)
        self.columns = [f"{g}:{b}:{x:g}" + ("" if var == "v" else ":" + var)
                        for g, b, x, var in zip(gids.tolist(), branches.tolist(), positions.tolist(), self.variables)]

    def __getitem__(self, column):
        """One column by name ("3:0:0.5", "3:0:0.5:NaTs.ina") or index."""
        if isinstance(column, str):
            try:
                column = self.columns.index(column)
            except ValueError:
                raise KeyError(f"no probe column {column!r} (columns: {', '.join(self.columns[:8])}"
                               f"{', ...' if len(self.columns) > 8 else ''})") from None
        return self.data[:, column]

    def of(self, gid):
        """The columns of one cell: a 2-D array (n_frames x its probes)."""
        return self.data[:, self.gids == gid]

    def to_dataframe(self):
        """A pandas DataFrame indexed by time (needs pandas)."""
        import pandas as pd
        return pd.DataFrame(self.data, index=pd.Index(self.time, name="t_ms"), columns=self.columns)

    def __repr__(self):
        return f"Traces({self.data.shape[0]} frames x {self.data.shape[1]} columns)"


class Result:
    """What a run recorded: spikes, traces, timings (the keys of `arbolito run --timings
    json`), the solver that ran (auto: what it chose), the SONATA file written (or None),
    and t_end (ms simulated)."""

    def __init__(self, raw):
        self.spikes = Spikes(raw["spike_gids"], raw["spike_sources"], raw["spike_times"])
        self.traces = Traces(raw["time"], raw["data"], raw["column_gids"], raw["column_branches"],
                             raw["column_positions"], raw["column_variables"])
        self.timings = raw["timings"]
        self.solver = raw["solver"]
        self.output = raw["output"] or None
        self.stopped = raw["stopped"]
        self.t_end = raw["t_end"]

    def __repr__(self):
        return (f"Result(solver {self.solver}, {len(self.spikes)} spikes, {self.traces.data.shape[1]} traces of "
                f"{self.traces.data.shape[0]} frames, run {self.timings['run']:.3f} s)")


def _optional_float(name, value):
    if value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        raise _arbolito.InputError(f"--{name}: {value!r} is not a number") from None


def run(model, solver="auto", *, tfinal=None, dt=None, threads=1, exchange_threads=0, pipeline=True,
        spikes_only=False, event_rules=None, output=None, double_report=False, progress="auto"):
    """Runs a model (a Model, a dict or a model file's path) and returns its Result.

    The keywords are `arbolito run`'s options: solver (NAME[:KEY=VALUE]..., as --solver),
    tfinal and dt (ms), threads, exchange_threads (0: the engine chooses), pipeline
    (False: --no-pipeline), spikes_only, event_rules ("arbor" or "neuron"), output (a
    SONATA file written as -o writes it; double_report: float64 values). progress: "auto"
    (a tqdm bar after 2 s), None, or a callable(t, tfinal).

    Errors raise InputError (bad input: the command line's message, exit status 2 there)
    or RunError (the run failed); SIGINT or SIGTERM raise Stopped. Python's other threads
    run while the run integrates (the GIL is released).
    """
    m = as_model(model)
    if event_rules not in (None, "arbor", "neuron"):
        raise _arbolito.InputError(f"--event-rules: {event_rules!r} not in {{arbor, neuron}}")
    for name, value in (("threads", threads), ("exchange-threads", exchange_threads)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
            raise _arbolito.InputError(f"--{name}: {value!r} is not a whole number >= 1")
    callback = make_progress(progress)
    # Only Python's main thread receives signals: there the run takes SIGINT and SIGTERM
    # over from Python while it integrates.
    main = threading.current_thread() is threading.main_thread()
    try:
        raw = _arbolito.run(m.path, m._text, m.sets, str(solver), int(threads), int(exchange_threads), bool(pipeline),
                            bool(spikes_only), _optional_float("dt", dt), _optional_float("tfinal", tfinal),
                            event_rules or "", os.fspath(output) if output is not None else "", bool(double_report),
                            callback, main)
    finally:
        if hasattr(callback, "close"):
            callback.close()
    result = Result(raw)
    if result.stopped:
        raise Stopped(raw["stopped_by"], result)
    return result


def _solver_list(solvers):
    if isinstance(solvers, str):
        return solvers
    return ",".join(str(s) for s in solvers)


# A bound on an action potential's steepest slope, mV/ms: compare's default trace
# tolerance is this times the spike tolerance (app/command_compare.cpp, docs/compare.md).
UPSTROKE_SLOPE = 400.0


def _table(rows):
    try:
        import pandas as pd
    except ImportError:
        return rows
    return pd.DataFrame(rows)


def compare(model, solvers, *, tfinal=None, dt=None, threads=1, spikes_only=False, spike_tolerance=None,
            voltage_tolerance=None, output=None, progress="auto"):
    """Runs a model with each solver (a list of specs, or one comma-separated string) and
    compares each with the first, as `arbolito compare` does (docs/compare.md): a table,
    one row per solver (a pandas DataFrame where pandas is installed, else a list of
    dicts) with compare.csv's columns and `why` (what broke the verdict). output: a folder
    for one SONATA file per solver (float64 values), named as the command line names them.
    Every solver is checked to run here before the first runs."""
    m = as_model(model)
    specs = _arbolito.check_solver_list(_solver_list(solvers))
    for name, tol in (("spike-tolerance", spike_tolerance), ("voltage-tolerance", voltage_tolerance)):
        if tol is not None and (math.isnan(tol) or tol < 0):
            raise _arbolito.InputError(f"--{name}: {tol} is no tolerance: give a number >= 0")
    run_dt = dt if dt is not None else m.describe()["dt"]
    spike_tol = spike_tolerance if spike_tolerance is not None else _arbolito.default_spike_tolerance(run_dt)
    voltage_tol = voltage_tolerance if voltage_tolerance is not None else spike_tol * UPSTROKE_SLOPE
    if output is not None:
        os.makedirs(output, exist_ok=True)
    rows, ref = [], None
    for spec in specs:
        path = os.path.join(output, spec.replace(":", "_") + ".h5") if output is not None else None
        try:
            r = run(m, spec, tfinal=tfinal, dt=dt, threads=threads, spikes_only=spikes_only, output=path,
                    double_report=True, progress=progress)
        except Stopped as e:
            e.table = _table(rows)
            raise
        if ref is None:
            ref = r
        rows.append(_row(spec, r, ref, spikes_only, spike_tol, voltage_tol))
    return _table(rows)


def _row(spec, r, ref, spikes_only, spike_tol, voltage_tol):
    t = r.timings
    name = "auto=" + r.solver if spec.split(":")[0] == "auto" else spec
    a = _arbolito.spike_agreement(r.spikes.gids, r.spikes.sources, r.spikes.times, ref.spikes.gids,
                                  ref.spikes.sources, ref.spikes.times)
    has = r.traces.data.shape[1] > 0 and not spikes_only
    ref_has = ref.traces.data.shape[1] > 0 and not spikes_only
    if r is ref:
        traces, max_dv = ("compared" if has else "none"), 0.0
    elif not has and not ref_has:
        traces, max_dv = "none", 0.0
    elif (has and ref_has and r.traces.data.shape == ref.traces.data.shape
          and np.array_equal(r.traces.gids, ref.traces.gids) and np.array_equal(r.traces.branches, ref.traces.branches)):
        traces = "compared"
        max_dv = float(np.max(np.abs(r.traces.data - ref.traces.data))) if r.traces.data.size else 0.0
    else:
        traces, max_dv = "mismatch", 0.0
    # The verdict and what broke it, in compare's words (docs/compare.md).
    why = []
    if r is not ref:
        if a["trains_differ"] > 0:
            why.append(f"{a['n']} spikes against {a['n_ref']}: {a['trains_differ']} spike train(s) with another count")
        if not a["max_dt"] <= spike_tol:
            why.append(f"spike times {a['max_dt']:.3g} ms apart (tolerance {spike_tol:.3g} ms)")
        if traces == "mismatch":
            why.append("traces of other frames or columns")
        if traces == "compared" and not max_dv <= voltage_tol:
            why.append(f"traces {max_dv:.3g} mV apart (tolerance {voltage_tol:.3g} mV)")
    agrees = not why
    ns = t["ns_per_cv_step"]
    return {
        "solver": name, "setup_s": t["setup"], "run_s": t["run"], "steps": t["steps"], "n_cv": t["n_cv"],
        "ns_per_cv_step": ns, "speedup": (ref.timings["run"] / t["run"] if t["run"] > 0 else 0.0),
        "traces": traces, "max_abs_dv_mV": max_dv if traces == "compared" else math.nan,
        "n_spikes": a["n"], "n_spikes_ref": a["n_ref"], "n_spikes_diff": a["n"] - a["n_ref"],
        "spike_trains_count_differ": a["trains_differ"], "max_spike_dt_ms": a["max_dt"],
        "spikes_identical": a["identical"], "spike_tolerance_ms": spike_tol, "voltage_tolerance_mV": voltage_tol,
        "verdict": "reference" if r is ref else "agree" if agrees else "differ", "why": why, "file": r.output,
    }
