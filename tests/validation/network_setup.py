"""What the network checks against other simulators share: the model with --set overrides
written to a work folder, and arbolito's geometry dump of it (docs/geometry-dump.md)."""
import contextlib
import json
import os
import subprocess
import tempfile


def apply_set(model, item):
    key, sep, value = item.partition("=")
    if not sep or not key:
        raise ValueError("--set expects KEY=JSON, got %r" % item)
    try:
        v = json.loads(value)
    except ValueError:
        raise ValueError("--set %s: %r is not JSON" % (key, value))
    obj = model
    parts = key.split(".")
    for p in parts[:-1]:
        obj = obj[int(p)] if isinstance(obj, list) else obj.setdefault(p, {})
    if isinstance(obj, list):
        obj[int(parts[-1])] = v
    else:
        obj[parts[-1]] = v


def absolute_swc(model, base):
    """SWC paths are relative to the model file: keep them valid in the work dir."""
    for c in model.get("cells", []):
        m = c.get("morphology")
        if isinstance(m, dict) and isinstance(m.get("swc"), str) and not os.path.isabs(m["swc"]):
            m["swc"] = os.path.join(base, m["swc"])


def run(cmd, what):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if p.returncode != 0:
        raise RuntimeError("%s failed (exit %d): %s\n%s" % (what, p.returncode, " ".join(cmd), p.stderr.strip()))
    return p


@contextlib.contextmanager
def work_dir(path):
    """PATH (kept), or a temporary folder removed afterwards."""
    if path:
        os.makedirs(path, exist_ok=True)
        yield path
    else:
        with tempfile.TemporaryDirectory() as tmp:
            yield tmp


def prepared_model(arbolito, model, sets, work):
    """MODEL with SETS applied (written to WORK where there are any) and its geometry dump:
    (the model's path, the dump)."""
    if sets:
        with open(model) as fh:
            spec = json.load(fh)
        for s in sets:
            apply_set(spec, s)
        absolute_swc(spec, os.path.dirname(os.path.abspath(model)))
        model = os.path.join(work, "model.json")
        with open(model, "w") as fh:
            json.dump(spec, fh, indent=1)
    geom = os.path.join(work, "geom.json")
    run([arbolito, "info", model, "--geometry", geom, "--log-level", "warn"], "arbolito info")
    with open(geom) as fh:
        return model, json.load(fh)
