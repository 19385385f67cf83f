"""arbolito's Python API against its command line: the same model gives the same bits,
the same errors and the same stop on SIGINT."""
import json
import os
import signal
import threading
import time

import h5py
import numpy as np
import pytest

import arbolito


def read_sonata(path):
    """Every dataset of a SONATA file by its path, as numpy arrays."""
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: out.__setitem__(name, obj[()]) if isinstance(obj, h5py.Dataset) else None)
    return out


def cli_error(cli, *args):
    """The command line's error message for `args` (its exit status must be 2)."""
    p = cli(*args)
    assert p.returncode == 2, p.stderr
    lines = [l for l in p.stderr.splitlines() if l.startswith("[error] ")]
    assert len(lines) == 1, p.stderr
    return lines[0][len("[error] "):]


# Bitwise: the same engine, model and settings give the same doubles, so equality is exact.
@pytest.mark.parametrize("solver", ["cpu", "omp"])
def test_ring_same_bits_as_the_command_line(cli, examples, tmp_path, solver):
    cli_out, py_out = tmp_path / "cli.h5", tmp_path / "py.h5"
    model = examples / "ring.json"
    p = cli("run", model, "--solver", solver, "--threads", 2, "--tfinal", 30, "--double-report", "-o", cli_out)
    assert p.returncode == 0, p.stderr
    r = arbolito.run(arbolito.Model.from_file(model), solver, threads=2, tfinal=30, output=py_out, double_report=True)
    f = read_sonata(cli_out)
    assert np.array_equal(r.traces.data, f["report/ring/data"])
    assert np.array_equal(r.spikes.times, f["spikes/ring/timestamps"])
    assert np.array_equal(r.spikes.gids, f["spikes/ring/node_ids"])
    assert len(r.spikes) > 0
    mapping_time = f["report/ring/mapping/time"]
    assert np.array_equal(r.traces.time, mapping_time[0] + np.arange(len(r.traces.time)) * mapping_time[2])
    # The file Python wrote is the command line's, dataset for dataset.
    g = read_sonata(py_out)
    assert g.keys() == f.keys()
    for k in f:
        assert np.array_equal(f[k], g[k]), k


def test_busyring_with_sets_same_spikes_as_the_command_line(cli, examples, tmp_path):
    out = tmp_path / "cli.h5"
    sets = {"network.num-cells": 16, "network.duration": 40, "network.event-weight": 0.3}
    args = [a for k, v in sets.items() for a in ("--set", f"{k}={json.dumps(v)}")]
    p = cli("run", examples / "busyring.json", *args, "--solver", "cpu", "-o", out)
    assert p.returncode == 0, p.stderr
    model = arbolito.Model.from_file(examples / "busyring.json")
    for k, v in sets.items():
        model.set(k, v)
    r = arbolito.run(model, "cpu")
    f = read_sonata(out)
    assert len(r.spikes) > 0
    assert np.array_equal(r.spikes.times, f["spikes/without-stdp/timestamps"])
    assert np.array_equal(r.spikes.gids, f["spikes/without-stdp/node_ids"])
    # The same network from the builder, as a dict.
    b = arbolito.run(arbolito.Model.from_builder("busyring", name="without-stdp", **{
        k.replace("-", "_"): v for k, v in model.to_dict()["network"].items() if k != "builder"}).set(
        "network.num-cells", 16).set("network.duration", 40).set("network.event-weight", 0.3), "cpu")
    assert np.array_equal(b.spikes.times, r.spikes.times)


def test_dtypes_and_shapes(examples):
    r = arbolito.run(examples / "ring.json", "cpu", tfinal=10)
    assert r.spikes.gids.dtype == np.uint64 and r.spikes.sources.dtype == np.uint32
    assert r.spikes.times.dtype == np.float64
    assert r.spikes.gids.shape == r.spikes.times.shape == r.spikes.sources.shape
    d = r.traces.data
    assert d.dtype == np.float64 and d.ndim == 2 and d.flags.c_contiguous
    # ring: 8 cells, 2 probes each; 10 ms at sample_dt 0.1 ms: 100 frames.
    assert d.shape == (100, 16) and r.traces.time.shape == (100,)
    assert r.traces.columns[:2] == ["0:0:0.5", "0:1:0.5"]
    assert np.array_equal(r.traces["0:1:0.5"], d[:, 1])
    assert r.traces.of(3).shape == (100, 2)
    assert r.timings["steps"] == 400 and r.timings["solver"] == "cpu"
    s = arbolito.run(examples / "ring.json", "cpu", tfinal=10, spikes_only=True)
    assert s.traces.data.shape == (0, 0) and s.traces.time.shape == (0,)
    assert np.array_equal(s.spikes.times, r.spikes.times)


def test_columns_say_what_they_record():
    # v, a gate and two channels' currents at the soma, the leak's on the dendrite: each
    # column names its variable; a v column keeps the plain "GID:BRANCH:X".
    m = arbolito.Model.from_dict({
        "run": {"dt": 0.025, "tfinal": 5, "sample_dt": 0.1},
        "cells": [{"morphology": {"builder": "ball_and_stick"},
                   "paint": [{"region": "soma", "mechanism": "hh"}, {"region": "dend", "mechanism": "pas"}],
                   "probes": [{"location": "soma"}, {"location": "soma", "variable": "hh.m"},
                              {"location": "soma", "variable": "hh.i"},
                              {"location": {"branch": 1, "x": 0.5}, "variable": "pas.i"}]}]})
    r = arbolito.run(m, "cpu")
    assert r.traces.variables == ["v", "hh.m", "hh.i", "pas.i"]
    assert r.traces.columns[0] == "0:0:0.5" and r.traces.columns[2] == "0:0:0.5:hh.i"
    assert np.array_equal(r.traces["0:0:0.5:hh.i"], r.traces.data[:, 2])
    assert np.all(np.isfinite(r.traces.data)) and np.any(r.traces["0:0:0.5:hh.i"] != 0)


def test_model_from_dict_and_set(examples):
    d = json.loads((examples / "ring.json").read_text())
    m = arbolito.Model.from_dict(d, base_dir=examples).set("network.weight", 0.0).set("run.tfinal", 20)
    assert m.describe()["tfinal"] == 20 and m.describe()["cells"] == 8
    r = arbolito.run(m, "cpu")
    # Without the ring's weight only the kicked cell fires.
    assert set(r.spikes.gids.tolist()) == {0}


# Errors: the command line's message, as a Python exception.
def test_model_errors_carry_the_command_lines_message(cli, examples, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"name": "x", "run": {"dt": -1}}))
    with pytest.raises(arbolito.InputError) as e:
        arbolito.run(bad, "cpu")
    assert str(e.value) == cli_error(cli, "run", bad, "--solver", "cpu", "-o", tmp_path / "x.h5")
    with pytest.raises(arbolito.InputError) as e:
        arbolito.run(arbolito.Model.from_file(examples / "ring.json").set("cells[0].ra", "much"), "cpu")
    assert str(e.value) == cli_error(cli, "run", examples / "ring.json", "--set", 'cells[0].ra="much"', "-o",
                                     tmp_path / "x.h5")
    with pytest.raises(arbolito.InputError) as e:
        arbolito.run(tmp_path / "missing.json")
    assert str(e.value) == cli_error(cli, "run", tmp_path / "missing.json", "-o", tmp_path / "x.h5")
    with pytest.raises(arbolito.InputError) as e:
        arbolito.run(examples / "ring.json", "cpu", tfinal=-5)
    assert str(e.value) == cli_error(cli, "run", examples / "ring.json", "--tfinal", -5, "-o", tmp_path / "x.h5")
    assert isinstance(e.value, ValueError)
    with pytest.raises(arbolito.InputError, match="--solver"):
        arbolito.run(examples / "ring.json", "cpu:lanes=3")
    with pytest.raises(arbolito.InputError, match="--solvers"):
        arbolito.compare(examples / "ring.json", ["cpu", "nope"])
    with pytest.raises(TypeError):
        arbolito.run(42)
    assert not list(tmp_path.glob("x.h5*"))


def test_output_errors_write_nothing(examples, tmp_path):
    with pytest.raises(arbolito.InputError, match="-o"):
        arbolito.run(examples / "ring.json", "cpu", tfinal=1, output=tmp_path / "no" / "such" / "dir.h5")
    with pytest.raises(arbolito.InputError, match="model file"):
        arbolito.run(examples / "ring.json", "cpu", tfinal=1, output=examples / "ring.json")


# Ctrl-C: SIGINT during the run stops it at an epoch boundary, keeps what it recorded,
# and leaves Python's own handler in place afterwards.
def test_sigint_stops_the_run(examples, tmp_path):
    out = tmp_path / "stopped.h5"
    sent = []

    def interrupt(t, tfinal):
        if not sent:
            sent.append(t)
            os.kill(os.getpid(), signal.SIGINT)

    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(arbolito.Stopped) as e:
        arbolito.run(examples / "ring.json", "cpu", tfinal=2000, output=out, progress=interrupt)
    assert isinstance(e.value, KeyboardInterrupt)
    assert str(e.value).startswith("stopped by SIGINT at t = ")
    r = e.value.result
    assert sent and r.stopped and sent[0] <= r.t_end < 2000
    # Frames at every sample_dt up to t_end, that one included (as the kept file holds).
    assert r.traces.data.shape[0] == len(r.traces.time) == round(r.t_end / 0.1) + 1
    assert not out.exists() and (tmp_path / "stopped.h5.partial").exists()
    assert r.output == str(tmp_path / "stopped.h5.partial")
    assert signal.getsignal(signal.SIGINT) is before
    # The next run runs to its end.
    assert arbolito.run(examples / "ring.json", "cpu", tfinal=5).t_end == 5


def test_progress_callback_and_its_exceptions(examples):
    seen = []
    arbolito.run(examples / "ring.json", "cpu", tfinal=50, progress=lambda t, tf: seen.append((t, tf)))
    assert seen and seen[-1] == (50, 50) and all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))

    def fail(t, tfinal):
        raise ZeroDivisionError("from the callback")

    with pytest.raises(ZeroDivisionError, match="from the callback"):
        arbolito.run(examples / "ring.json", "cpu", tfinal=50, progress=fail)


def test_the_gil_is_released_while_a_run_integrates(examples):
    # A Python thread counts, a millisecond a count, while a run of about half a second
    # integrates: with the GIL held through the run it could not count at all. Ten counts
    # leave room for a loaded machine.
    counted, done = [0], threading.Event()

    def count():
        while not done.is_set():
            counted[0] += 1
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    before = counted[0]
    r = arbolito.run(examples / "ring.json", "cpu", progress=None, tfinal=5000)
    during = counted[0] - before
    done.set()
    t.join()
    assert r.timings["run"] > 0.1, "the run must be long enough for the thread to count"
    assert during >= 10


def test_compare(examples, tmp_path):
    table = arbolito.compare(examples / "ring.json", ["cpu", "omp"], tfinal=20, threads=2, output=tmp_path)
    rows = table.to_dict("records") if hasattr(table, "to_dict") else table
    assert [r["solver"] for r in rows] == ["cpu", "omp"]
    assert [r["verdict"] for r in rows] == ["reference", "agree"]
    assert rows[1]["max_abs_dv_mV"] == 0 and rows[1]["spikes_identical"]
    assert (tmp_path / "cpu.h5").exists() and (tmp_path / "omp.h5").exists()


def test_catalogue_and_solvers():
    cat = arbolito.catalogue()
    assert cat["hh"]["kind"] == "density" and cat["expsyn"]["kind"] == "synapse"
    assert cat["expsyn"]["parameters"]["tau"]["unit"] == "ms"
    assert cat["hh"]["states"] == ["m", "h", "n"] and cat["hh"]["currents"] == ["i"]
    assert cat["expsyn"]["currents"] == []  # probes record density mechanisms only
    names = {s["name"]: s for s in arbolito.solvers()}
    assert names["cpu"]["available"] and "gpu-fine" in names
    assert "cpu" in arbolito.describe_solvers()


def test_gpu_solvers_agree_with_cpu(examples):
    # On a machine with a GPU (CUDA build): compare's verdict at its default tolerances.
    here = {s["name"] for s in arbolito.solvers() if s["available"]}
    gpu = [s for s in ("gpu-cell", "gpu-fine") if s in here]
    if not gpu:
        pytest.skip("no GPU solver runs here")
    table = arbolito.compare(examples / "ring.json", ["cpu", *gpu], tfinal=50)
    rows = table.to_dict("records") if hasattr(table, "to_dict") else table
    assert [r["verdict"] for r in rows] == ["reference"] + ["agree"] * len(gpu), [r["why"] for r in rows]
