#!/usr/bin/python3
"""NEURON's values for the translated mechanisms' unit tests (tests/nmodl/test_nmodl_vs_neuron.cpp).

    neuron_reference.py WORKDIR MODFILE...

Compiles the .mod files with NEURON's nrnivmodl (Debian 12's script looks for its makefile in
/usr/bin and its library in /usr/lib; a copy pointed at /usr/lib/nrn builds the shared library,
which is all Python needs), then runs each case of CASES whose mechanisms were given: one
compartment (L = diam = 20 um, cm = 1 uF/cm2, 34 degC, dt = 0.025 ms) whose voltage a
voltage clamp drives through a ramp and steps from -100 to +50 mV, and writes
WORKDIR/<case>.csv, one row per time step k:
  v                 v(t_k) (mV)
  <ion>_xi/_xo      the ion's Xi, Xo (mM) at t_k
  <ion>_e           the ion's e (mV) in step k: NEURON computes it (by Nernst, where a
                    mechanism writes a concentration) in the step's current phase, from the
                    concentrations at t_k
  <ion>_i           the ion's current density summed in step k's current phase (mA/cm2),
                    what a DERIVATIVE block reading i<ion> sees in step k's state update
  s_<state>         the tested mechanism's states at t_k
  i                 the tested mechanism's current density in step k's current phase
                    (at v(t_k) and the states at t_k), mA/cm2
NEURON records a value at t_{k+1} after step k: the currents of step k are read from the
row after. Exit status 0, or 1 with a message.
"""
import os
import shutil
import subprocess
import sys

# case: (mechanism tested, other mechanisms in the compartment with their parameters, its
# parameters, ions to record, where its current comes from: ("range", name) a RANGE
# variable holding it, or ("g", ion) as g*(v - e_ion) with the recorded RANGE g).
CASES = {
    # the construct tests (tests/data/nmodl/constructs)
    "kion": ("kion", {}, {}, ["k"], ("range", "ik")),
    "cachan": ("cachan", {"cadecay": {}}, {}, ["ca"], ("range", "ica")),
    "cadecay": ("cadecay", {"cachan": {"gbar": 0.01}}, {"gamma": 0.5}, ["ca"], None),
    "implicit": ("implicit", {}, {}, [], ("range", "i")),
    "nonlinear": ("nonlinear", {}, {}, [], ("range", "i")),
    "threestate": ("threestate", {}, {}, ["na"], ("g", "na")),
    "steadystate": ("steadystate", {}, {}, ["k"], ("g", "k")),
    # the Allen channels (../shared/models/allen/mechanisms)
    "NaTs": ("NaTs", {}, {"gbar": 0.1}, ["na"], ("range", "ina")),
    "NaTa": ("NaTa", {}, {"gbar": 0.1}, ["na"], ("range", "ina")),
    "Nap": ("Nap", {}, {"gbar": 0.01}, ["na"], ("range", "ina")),
    "NaV": ("NaV", {}, {"gbar": 0.1}, ["na"], ("g", "na")),
    "K_P": ("K_P", {}, {"gbar": 0.01}, ["k"], ("range", "ik")),
    "K_T": ("K_T", {}, {"gbar": 0.01}, ["k"], ("range", "ik")),
    "Kd": ("Kd", {}, {"gbar": 0.01}, ["k"], ("range", "ik")),
    "Kv2like": ("Kv2like", {}, {"gbar": 0.01}, ["k"], ("range", "ik")),
    "Kv3_1": ("Kv3_1", {}, {"gbar": 0.01}, ["k"], ("range", "ik")),
    "Im": ("Im", {}, {"gbar": 0.01}, ["k"], ("range", "ik")),
    "Im_v2": ("Im_v2", {}, {"gbar": 0.01}, ["k"], ("range", "ik")),
    "Ih": ("Ih", {}, {"gbar": 0.001}, [], ("range", "ihcn")),
    "Ca_HVA": ("Ca_HVA", {}, {"gbar": 0.001}, ["ca"], ("range", "ica")),
    "Ca_LVA": ("Ca_LVA", {}, {"gbar": 0.001}, ["ca"], ("range", "ica")),
    "CaDynamics": ("CaDynamics", {"Ca_HVA": {"gbar": 0.005}, "Ca_LVA": {"gbar": 0.005}}, {}, ["ca"], None),
    "SK": ("SK", {"Ca_HVA": {"gbar": 0.005}, "CaDynamics": {}}, {"gbar": 0.01}, ["k", "ca"], ("range", "ik")),
}
CELSIUS, DT, TSTOP, V_INIT = 34.0, 0.025, 60.0, -70.0


def compile_mods(work, mods):
    mod_dir = os.path.join(work, "mod")
    if os.path.isdir(mod_dir):
        shutil.rmtree(mod_dir)
    os.makedirs(mod_dir)
    for m in mods:
        shutil.copy(m, mod_dir)
    with open("/usr/bin/nrnivmodl") as f:
        script = f.read()
    script = script.replace('"${bindir}/nrnmech_makefile"', "/usr/lib/nrn/nrnmech_makefile")
    script = script.replace('"ROOT=${prefix}"', '"ROOT=${prefix}" "libdir=/usr/lib/nrn"')
    script = script.replace("make -j 4", "make -j 2").replace(" special &&", " mech_lib_shared &&")
    with open(os.path.join(work, "nrnivmodl"), "w") as f:
        f.write(script)
    r = subprocess.run(["bash", os.path.join(work, "nrnivmodl")], cwd=mod_dir, capture_output=True, text=True)
    lib = os.path.join(mod_dir, "x86_64", ".libs", "libnrnmech.so")
    if not os.path.exists(lib):
        lib = os.path.join(mod_dir, "x86_64", "libnrnmech.so")
    if not os.path.exists(lib):
        sys.exit("nrnivmodl failed:\n" + r.stdout[-3000:] + r.stderr[-3000:])
    return lib


def voltage_protocol(h):
    """The clamp's command: a ramp from -100 to +50 mV over 30 ms, then steps."""
    t, v = [], []
    n = int(round(TSTOP / DT)) + 2
    for k in range(n):
        tk = k * DT
        if tk < 2.0:
            vk = V_INIT
        elif tk < 32.0:
            vk = -100.0 + 150.0 * (tk - 2.0) / 30.0
        elif tk < 40.0:
            vk = -30.0
        elif tk < 50.0:
            vk = 10.0
        else:
            vk = -85.0
        t.append(tk)
        v.append(vk)
    return h.Vector(t), h.Vector(v)


def run_case(h, name, case, out):
    mech, others, params, ions, current = case
    sec = h.Section(name="soma_" + name)
    sec.L = sec.diam = 20.0
    sec.nseg = 1
    sec.cm = 1.0
    sec.insert(mech)
    for k, val in params.items():
        setattr(sec(0.5), "%s_%s" % (k, mech), val)
    for o, ps in others.items():
        sec.insert(o)
        for k, val in ps.items():
            setattr(sec(0.5), "%s_%s" % (k, o), val)
    seg = sec(0.5)
    clamp = h.SEClamp(seg)
    clamp.rs = 1e-3
    clamp.dur1 = 1e9
    tvec, vcmd = voltage_protocol(h)
    vcmd.play(clamp._ref_amp1, tvec, 1)
    rec = {"v": seg._ref_v}
    for ion in ions:
        for col, var in (("e", "e" + ion), ("xi", ion + "i"), ("xo", ion + "o"), ("i", "i" + ion)):
            rec["%s_%s" % (ion, col)] = getattr(seg, "_ref_" + var)
    mobj = getattr(seg, mech)
    states = [n for n in STATES[mech]]
    for s in states:
        # a concentration the mechanism writes is the segment's (NEURON's ion's) variable
        rec["s_" + s] = getattr(mobj, "_ref_" + s) if hasattr(mobj, "_ref_" + s) else getattr(seg, "_ref_" + s)
    if current is not None:
        rec["mech_i"] = getattr(mobj, "_ref_" + (current[1] if current[0] == "range" else "g"))
    vecs = {k: h.Vector().record(r) for k, r in rec.items()}
    h.celsius = CELSIUS
    h.dt = DT
    h.finitialize(V_INIT)
    n = int(round(TSTOP / DT))
    for _ in range(n):
        h.fadvance()
    cols = {k: list(v) for k, v in vecs.items()}
    rows = len(cols["v"]) - 1
    header = ["v"]
    for ion in ions:
        header += ["%s_e" % ion, "%s_xi" % ion, "%s_xo" % ion, "%s_i" % ion]
    header += ["s_" + s for s in states]
    if current is not None:
        header.append("i")
    with open(os.path.join(out, name + ".csv"), "w") as f:
        f.write(",".join(header) + "\n")
        for k in range(rows):
            row = [cols["v"][k]]
            for ion in ions:
                row += [cols["%s_e" % ion][k + 1], cols["%s_xi" % ion][k], cols["%s_xo" % ion][k],
                        cols["%s_i" % ion][k + 1]]
            row += [cols["s_" + s][k] for s in states]
            if current is not None:
                x = cols["mech_i"][k + 1]
                if current[0] == "g":
                    x *= cols["v"][k] - cols["%s_e" % current[1]][k + 1]
                row.append(x)
            f.write(",".join(repr(float(x)) for x in row) + "\n")
    clamp = None
    sec = None


def states_of(mod):
    """The STATE names of a .mod file (for the recording)."""
    import re
    text = open(mod).read()
    text = re.sub(r"(?ms)^\s*COMMENT\b.*?^\s*ENDCOMMENT\b", "", text)
    text = re.sub(r":.*", "", text)
    m = re.search(r"\bSTATE\s*\{([^}]*)\}", text)
    if not m:
        return []
    body = re.sub(r"\([^)]*\)", " ", m.group(1))
    body = re.sub(r"\bFROM\s+\S+\s+TO\s+\S+", " ", body)
    return re.findall(r"[A-Za-z_]\w*", body)


STATES = {}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    work = os.path.abspath(sys.argv[1])
    mods = [os.path.abspath(m) for m in sys.argv[2:]]
    os.makedirs(work, exist_ok=True)
    for m in mods:
        STATES[os.path.splitext(os.path.basename(m))[0]] = states_of(m)
    lib = compile_mods(work, mods)
    from neuron import h
    h.nrn_load_dll(lib)
    done = 0
    for name, case in CASES.items():
        needed = [case[0]] + list(case[1])
        if all(n in STATES for n in needed):
            run_case(h, name, case, work)
            done += 1
    print("%d case(s) written to %s" % (done, work))


if __name__ == "__main__":
    main()
