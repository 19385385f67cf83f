"""arbolito from Python: the engine of the `arbolito` command line, as a module.

    import arbolito
    model = arbolito.Model.from_file("examples/ring.json").set("run.tfinal", 50)
    result = arbolito.run(model, solver="cpu")
    result.spikes.times, result.traces.time, result.traces.data, result.timings

Models come from a file, a dict or a builder (Model); run() returns the record in memory
(and writes SONATA with output=); compare() runs several solvers against the first.
Bad input raises InputError with the command line's message; a failed run RunError;
SIGINT (Ctrl-C) or SIGTERM during a run Stopped. README's Python section has more.
"""
from . import _arbolito
from ._arbolito import InputError, RunError
from .model import Model
from .runs import Result, Spikes, Stopped, Traces, compare, run

__version__ = _arbolito.version
cuda = _arbolito.cuda

__all__ = ["Model", "run", "compare", "catalogue", "solvers", "describe_solvers", "set_log_level", "Result", "Spikes",
           "Traces", "InputError", "RunError", "Stopped", "cuda"]


def catalogue():
    """The mechanisms a model may name: {name: {"kind", "parameters": {name: {"default",
    "unit", "min"}}, "states", "currents"}} (docs/mechanisms.md; a density mechanism's
    states and currents are what probes may record of it)."""
    return {m["name"]: {k: v for k, v in m.items() if k != "name"} for m in _arbolito.mechanisms()}


def solvers():
    """The solvers of this build: [{"name", "available", "why"}] (why: what a GPU solver
    lacks here)."""
    return _arbolito.solvers()


def describe_solvers():
    """The solvers and their options, as `arbolito run --help` lists them."""
    return _arbolito.describe_solvers()


def set_log_level(level):
    """The engine's log on stderr: trace, debug, info, warn (the default here), error, off."""
    _arbolito.set_log_level(level)
