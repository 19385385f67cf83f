#!/usr/bin/python3
"""arbolito against NEURON on the four Allen perisomatic models (driven by tools/validate_allen.sh).

    allen_validate.py --arbolito BIN --allen DIR --nrn-lib LIB --work DIR [--solvers cpu,...]
                      [--zero-area keep|fold] [--models FIT,...] [--rheobase]

For each model (fit + morphology of DIR/README.md's table):
  1. passive: the model without its channels (allen_to_arbolito.py --passive-only), arbolito
     against NEURON built from arbolito's geometry dump; the whole 1 s trace must agree
     within PASSIVE_TOL (checks geometry, axon stubs, nseg rule, ra, cm and pas at once).
  2. the full model at the two amplitudes of AMPLITUDES, on every solver given: same spike
     count, spike times within SPIKE_TOL, soma v within TRACE_TOL over the first 100 ms.
  3. (information) NEURON's cell built by the Allen recipe itself (Import3d, fix_axon, nseg
     rule) against NEURON's cell built from the dump: how faithful the dump's geometry is.
Where arbolito cannot read the full model (no Allen mechanisms or ions in the build), NEURON
still runs on the dump of the passive model with the fit's channels (its spike counts are
printed) and the arbolito columns say what is missing; the exit status is then 1.
--zero-area gives arbolito's models that discretisation key (allen_to_arbolito.py's; the
NEURON cells come from the geometry dump, NEURON's layout either way); --models restricts
the run to those fits (default: all four).
--rheobase recomputes each model's rheobase in NEURON (bisection to 1 pA) and prints it
instead of validating.
Exit status: 0 all targets met; 1 a target missed or a part missing; 2 bad usage.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# (fit, morphology) as DIR/README.md pairs them.
MODELS = [
    ("472363762", "Scnn1a_473845048_m"),
    ("473863510", "Rorb_325404214_m"),
    ("473863035", "Nr5a1_471087815_m"),
    ("472912177", "Pvalb_470522102_m"),
]
# Step amplitudes (nA, 100..900 ms into the soma): 0.9 and 1.5 times each model's rheobase
# (the middle of its bracket), to the pA.
# The rheobase was found in NEURON (`allen_validate.py --rheobase`: bisection on the amplitude
# of the 800 ms step, to under 1 pA, on the cell of arbolito's geometry dump): 472363762
# 0.0688..0.0695, 473863510 0.1203..0.1211, 473863035 0.1031..0.1039, 472912177 0.1695..0.1703.
AMPLITUDES = {
    "472363762": (0.062, 0.104),
    "473863510": (0.109, 0.181),
    "473863035": (0.093, 0.155),
    "472912177": (0.153, 0.255),
}
SPIKE_TOL = 0.01    # ms: the targets of the validation
TRACE_TOL = 1e-3    # mV over the first TRACE_WINDOW ms
TRACE_WINDOW = 100.0
# The somatic channels' own currents (NaTs.ina against NEURON's ina_NaTs, ...) over the first
# TRACE_WINDOW ms, relative to the channel's largest magnitude there: the soma's v target
# (1e-3 mV against the spikes' swing of about 100 mV) is 1e-5 of its range, and a channel's
# current follows v through its conductance and gates, so the same share of its own range.
CURRENT_TOL = 1e-5
# Passive cell, whole run: both simulators solve the same implicit-Euler system on the same
# float32-rounded geometry; what is left is round-off (observed 2e-10 mV).
PASSIVE_TOL = 1e-6


def sh(cmd, what):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err = "\n".join(l for l in r.stderr.splitlines() if "DISPLAY" not in l and "No graphics" not in l)
    return r.returncode, r.stdout, err


def must(cmd, what):
    rc, out, err = sh(cmd, what)
    if rc != 0:
        raise RuntimeError("%s failed (exit %d): %s" % (what, rc, err.strip() or out.strip()))
    return out


class Ctx:
    def __init__(self, a):
        self.a = a
        self.fits = os.path.join(a.allen, "fits")
        self.morphs = os.path.join(a.allen, "morphologies")
        self.models = MODELS

    def channel_currents(self, fit):
        """[(arbolito probe, NEURON range variable)] of the fit's somatic channels whose .mod
        keeps its current as a RANGE variable (NaV's is not: NEURON has no ina_NaV)."""
        with open(os.path.join(self.fits, fit + "_fit.json")) as f:
            genome = json.load(f)["genome"]
        out = []
        for mech in sorted({g["mechanism"] for g in genome if g["section"] == "soma" and g["mechanism"]}):
            path = os.path.join(self.a.allen, "mechanisms", mech + ".mod")
            if not os.path.exists(path):
                continue
            with open(path) as f:
                text = re.sub(r":.*", "", f.read())
            block = re.search(r"NEURON\s*{(.*?)}", text, re.S).group(1)
            ranges = set(re.findall(r"\w+", " ".join(re.findall(r"RANGE([^\n]*)", block))))
            names = re.findall(r"WRITE\s+(i\w+)", block) + re.findall(r"NONSPECIFIC_CURRENT\s+(\w+)", block)
            out += [("%s.%s" % (mech, n), "%s_%s" % (n, mech)) for n in names if n in ranges]
        return out

    def convert(self, fit, morph, amp, name, passive, probes=()):
        cmd = [sys.executable, os.path.join(HERE, "allen_to_arbolito.py"), os.path.join(self.fits, fit + "_fit.json"),
               os.path.join(self.morphs, morph + ".swc"), self.a.work, "--amp", repr(amp), "--name", name,
               "--zero-area", self.a.zero_area]
        for p in probes:
            cmd += ["--probe", p]
        must(cmd + (["--passive-only"] if passive else []), "allen_to_arbolito.py " + name)
        return os.path.join(self.a.work, name + ".json")

    def dump(self, model):
        geom = model[:-5] + ".geom.json"
        rc, out, err = sh([self.a.arbolito, "info", model, "--geometry", geom, "--log-level", "warn"], "arbolito info")
        return (geom, None) if rc == 0 else (None, err.strip().splitlines()[-1] if err.strip() else "exit %d" % rc)

    def neuron(self, fit, geom, out, amp=None, passive=False, dump_passive=False, direct_swc=None, records=()):
        cmd = [sys.executable, os.path.join(HERE, "allen_neuron.py"), "direct" if direct_swc else "run", self.a.nrn_lib,
               os.path.join(self.fits, fit + "_fit.json")]
        cmd += [direct_swc, out, "--like", geom] if direct_swc else [geom, out]
        for r in records:
            cmd += ["--record", r]
        if amp is not None:
            cmd += ["--amp", repr(amp)]
        if passive:
            cmd.append("--passive-only")
        if dump_passive:
            cmd.append("--dump-passive")
        must(cmd, "allen_neuron.py " + os.path.basename(out))
        with open(out) as f:
            r = json.load(f)
        return r["spikes"], r["v"], r["sample_dt"], [r["records"][n] for n in records]

    def arbolito(self, model, solver, out):
        rc, _, err = sh([self.a.arbolito, "run", model, "-o", out, "--double-report", "--solver", solver,
                         "--log-level", "warn"], "arbolito run")
        if rc != 0:
            return None, (err.strip().splitlines() or ["exit %d" % rc])[-1]
        import h5py
        with h5py.File(out, "r") as f:
            data = f["report/default/data"][:]
            spikes = list(f["spikes/default/timestamps"][:])
        return (spikes, list(data[:, 0]), None, [list(data[:, k]) for k in range(1, data.shape[1])]), None


def compare(a, b, sample_dt, window=None):
    """(spike counts, largest spike-time difference or None, largest |dv| in the window)."""
    sa, va = a[0], a[1]
    sb, vb = b[0], b[1]
    n = min(len(va), len(vb)) if window is None else min(len(va), len(vb), int(round(window / sample_dt)))
    dv = max(abs(x - y) for x, y in zip(va[:n], vb[:n]))
    dt = max((abs(x - y) for x, y in zip(sa, sb)), default=0.0) if len(sa) == len(sb) else None
    return (len(sa), len(sb)), dt, dv


def current_difference(a, b, names, sample_dt, window):
    """(the largest |di| / max|i| over the window among the channels, its channel)."""
    n = int(round(window / sample_dt))
    worst = (0.0, "-")
    for name, x, y in zip(names, a[3], b[3]):
        n_k = min(n, len(x), len(y))
        scale = max(abs(u) for u in y[:n_k]) or 1.0
        d = max(abs(u - w) for u, w in zip(x[:n_k], y[:n_k])) / scale
        worst = max(worst, (d, name))
    return worst


def fmt(x):
    return "-" if x is None else "%.3g" % x


def validate(ctx, solvers):
    ok, missing = True, []
    rows = []
    for fit, morph in ctx.models:
        # 1. passive
        pm = ctx.convert(fit, morph, AMPLITUDES[fit][1], fit + "_passive", passive=True)
        pgeom, err = ctx.dump(pm)
        if err:
            raise RuntimeError("arbolito cannot read the passive model %s: %s" % (pm, err))
        nrn_p = ctx.neuron(fit, pgeom, pm[:-5] + ".nrn.json", passive=True)
        arb_p, err = ctx.arbolito(pm, "cpu", pm[:-5] + ".h5")
        if err:
            raise RuntimeError("arbolito run %s: %s" % (pm, err))
        (na, nb), dt, dv = compare(arb_p, nrn_p, nrn_p[2])
        # (The parvalbumin cell's passive membrane crosses -15 mV at this step: one "spike".)
        good = na == nb and dt is not None and dt <= SPIKE_TOL and dv <= PASSIVE_TOL
        ok &= good
        print("%s passive  cpu       spikes %d/%d  max|dt| %s ms  max|dv| whole run %s mV (limit %g)  %s"
              % (fit, na, nb, fmt(dt), fmt(dv), PASSIVE_TOL, "ok" if good else "FAIL"), flush=True)
        # 3. the recipe's own cell against the dump's, passive
        d = ctx.neuron(fit, pgeom, pm[:-5] + ".direct.json", passive=True,
                       direct_swc=os.path.join(ctx.morphs, morph + ".swc"))
        _, _, dvr = compare(d, nrn_p, nrn_p[2])
        rows.append("%s passive  max|dv| whole run %s mV" % (fit, fmt(dvr)))
        # 2. the full model at both amplitudes
        for amp in AMPLITUDES[fit]:
            name = "%s_%s" % (fit, ("%.3f" % amp).replace(".", "p"))
            currents = ctx.channel_currents(fit)
            fm = ctx.convert(fit, morph, amp, name, passive=False, probes=[c[0] for c in currents])
            geom, why = ctx.dump(fm)
            if why:
                # NEURON's reference on the passive model's dump, with the fit's channels.
                nrn = ctx.neuron(fit, pgeom, fm[:-5] + ".nrn.json", amp=amp, dump_passive=True)
                missing.append("%s: arbolito cannot read the full model: %s" % (name, why))
                ok = False
                print("%s %.3f nA  -         spikes -/%d  arbolito cannot read the model (see below)"
                      % (fit, amp, len(nrn[0])), flush=True)
            else:
                nrn = ctx.neuron(fit, geom, fm[:-5] + ".nrn.json", records=[c[1] for c in currents])
                for solver in solvers:
                    arb, err = ctx.arbolito(fm, solver, "%s.%s.h5" % (fm[:-5], solver.replace(":", "_")))
                    if err:
                        missing.append("%s on %s: %s" % (name, solver, err))
                        ok = False
                        print("%s %.3f nA  %-9s arbolito failed (see below)" % (fit, amp, solver), flush=True)
                        continue
                    (na, nb), dt, dv = compare(arb, nrn, nrn[2], TRACE_WINDOW)
                    _, _, dv_all = compare(arb, nrn, nrn[2])
                    di, worst = current_difference(arb, nrn, [c[0] for c in currents], nrn[2], TRACE_WINDOW)
                    good = (na == nb and dt is not None and dt <= SPIKE_TOL and dv <= TRACE_TOL and
                            di <= CURRENT_TOL)
                    ok &= good
                    print("%s %.3f nA  %-9s spikes %d/%d  max|dt| %s ms  max|dv| 0-%g ms %s mV  (whole run %s)  "
                          "channels' currents %d, max|di|/max|i| 0-%g ms %s (%s)  %s"
                          % (fit, amp, solver, na, nb, fmt(dt), TRACE_WINDOW, fmt(dv), fmt(dv_all), len(currents),
                             TRACE_WINDOW, fmt(di), worst, "ok" if good else "FAIL"), flush=True)
            # 3. the recipe's own cell against the dump's, with channels
            d = ctx.neuron(fit, pgeom, fm[:-5] + ".direct.json", amp=amp,
                           direct_swc=os.path.join(ctx.morphs, morph + ".swc"))
            (na, nb), dt, dv = compare(d, nrn, nrn[2], TRACE_WINDOW)
            _, _, dv_all = compare(d, nrn, nrn[2])
            rows.append("%s %.3f nA  spikes %d/%d  max|dt| %s ms  max|dv| 0-%g ms %s mV  (whole run %s)"
                        % (fit, amp, na, nb, fmt(dt), TRACE_WINDOW, fmt(dv), fmt(dv_all)))
    print("\nNEURON, the Allen recipe's own cell (Import3d, fix_axon, nseg rule) against the cell of the dump "
          "(information):")
    for r in rows:
        print("  " + r)
    if missing:
        print("\nmissing (the validation cannot pass until these work):")
        for m in missing:
            print("  " + m)
    print("\nallen validation: %s (targets: same spike count, spike times within %g ms, soma v within %g mV "
          "and each somatic channel's current within %g of its largest magnitude over the first %g ms; passive "
          "cells within %g mV)"
          % ("PASSED" if ok else "FAILED", SPIKE_TOL, TRACE_TOL, CURRENT_TOL, TRACE_WINDOW, PASSIVE_TOL))
    return 0 if ok else 1


def rheobase(ctx):
    for fit, morph in ctx.models:
        pm = ctx.convert(fit, morph, AMPLITUDES[fit][1], fit + "_passive", passive=True)
        pgeom, err = ctx.dump(pm)
        if err:
            raise RuntimeError(err)
        out = must([sys.executable, os.path.join(HERE, "allen_neuron.py"), "rheobase", ctx.a.nrn_lib,
                    os.path.join(ctx.fits, fit + "_fit.json"), pgeom, "--dump-passive"], "rheobase")
        r = json.loads(out.strip().splitlines()[-1])
        mid = 0.5 * (r["below"] + r["above"])
        print("%s rheobase between %.4f and %.4f nA: 0.9x and 1.5x the middle %.3f and %.3f (used: %.3f, %.3f)"
              % (fit, r["below"], r["above"], 0.9 * mid, 1.5 * mid, *AMPLITUDES[fit]), flush=True)
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arbolito", required=True)
    ap.add_argument("--allen", required=True, help="the Allen models' folder (fits/, morphologies/)")
    ap.add_argument("--nrn-lib", required=True, help="the compiled mechanisms (libnrnmech.so)")
    ap.add_argument("--work", required=True, help="folder for models, dumps and outputs")
    ap.add_argument("--solvers", default="cpu", help="comma-separated arbolito solvers for the full models")
    ap.add_argument("--zero-area", choices=("keep", "fold"), default="keep",
                    help="arbolito's zero-area nodes (the models' discretisation key)")
    ap.add_argument("--models", help="comma-separated fits to run (default: all four)")
    ap.add_argument("--rheobase", action="store_true")
    a = ap.parse_args(argv)
    ctx = Ctx(a)
    if a.models:
        known = dict(MODELS)
        unknown = [f for f in a.models.split(",") if f not in known]
        if unknown:
            print("allen_validate.py: --models: unknown fit %s (%s)" % (unknown[0], ", ".join(known)), file=sys.stderr)
            return 2
        ctx.models = [(f, known[f]) for f in a.models.split(",")]
    os.makedirs(a.work, exist_ok=True)
    try:
        return rheobase(ctx) if a.rheobase else validate(ctx, a.solvers.split(","))
    except RuntimeError as e:
        print("allen_validate.py: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
