#!/usr/bin/python3
"""Analytic self-checks of the NEURON harness (run_neuron.py), end to end.

    check_passive.py [WORKDIR]

Each check writes a geometry dump (make_geometry.cable_dump), runs run_neuron.py on it
(--float64, so that the comparison is not limited by float32 storage) and compares the
SONATA output with a closed-form answer. Exit status 0 when all pass, 1 otherwise.

1. Sealed-end cable, steady state. A passive cylinder (L = 1000 um, d = 2 um,
   Ra = 100 ohm cm, Rm = 1/g_pas = 1e4 ohm cm^2, so lambda = sqrt(d Rm / (4 Ra)) =
   707.1 um, L/lambda = 1.414) with a constant current I = 0.1 nA into its x = 0 end
   (NEURON's zero-area root node) reaches
       V(x) = E + I R_inf cosh((L - x)/lambda) / sinh(L/lambda),
       R_inf = Ra lambda / (pi r^2)      (= 225 MOhm here; V(0) - E = 25.3 mV).
   The run lasts 40 membrane time constants tau = Rm cm (dt = 0.1 ms, implicit
   Euler); the last frame is at 30 tau, where what is left of the transient is
   below exp(-30) (V(0) - E) ~ 1e-12 mV. NEURON's nodes sit at the segment centres
   x_i = (i + 1/2) dx plus zero-area nodes at both ends; at steady state this is
   the cell-centred second-order finite-volume scheme of the cable equation, with
   the injected current as the flux at x = 0 and V(0) extrapolated over dx/2 with
   that flux. The leading error is at x = 0: the extrapolation misses the curvature
   term (dx/2)^2 V''/2 = (dx/lambda)^2 (V(0) - E)/8 (V'' = (V - E)/lambda^2), and the
   finite-volume error of V(dx/2), of the same sign, adds about 0.014 (dx/lambda)^2
   (V(0) - E): measured, 0.1390 (dx/lambda)^2 (V(0) - E) for nseg 50 to 200, NEURON
   overestimating. Checked:
   (a) with nseg = 200 (dx/lambda = 0.007) the largest error at any node is below
       0.15 (dx/lambda)^2 (V(0) - E) = 1.9e-4 mV (an O(dx) mistake, such as a
       misplaced injection node or a half-segment left out, gives errors near
       (dx/lambda) (V(0) - E) ~ 0.2 mV, a thousand times more);
   (b) the observed order of convergence between nseg = 50, 100 and 200 lies in
       [1.9, 2.1];
   (c) Richardson's extrapolation (4 V_200 - V_100)/3 at x = 0 and x = L, where nodes
       of both grids coincide, matches the analytic value to 1e-6 mV (its own error
       is O(dx^4) ~ 1e-8 mV): this pins R_inf and lambda, i.e. Ra, g_pas, the
       diameter and the length, without any discretisation allowance;
   (d) the frames at 20 tau and 30 tau agree to 1e-6 mV (what is left at 20 tau is
       below exp(-20) (V(0) - E) = 5e-8 mV; at 30 tau exp(-10) times less).

2. One compartment, time course. A passive cylinder L = d = 10 um, nseg 1, cm 1,
   g_pas 0.001 (tau = 1 ms), IClamp 0.01 nA from delay 1.01 for 2 ms, sampled every
   step. NEURON's fixed step with secondorder = 0 is implicit Euler:
       V(n+1) = (C/dt V(n) + G E + I(n)) / (C/dt + G),
   C = 1e-5 cm A [nF], G = 1e-2 g A [uS], I(n) = amp when t(n) + dt/2 lies in
   [delay, delay + dur) (so the current starts in the step from t = 1.0, not 1.025, and
   stops after the step from 2.975). The recorded frames must equal this recurrence to
   1e-9 mV (round-off only), which pins implicit Euler, the area and capacitance units,
   the sign of IClamp's amp, its onset/offset rule and the alignment of the samples on
   k*sample_dt. (The two zero-area end nodes carry no membrane current and follow the
   centre node exactly.)
"""

import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_geometry as mg  # noqa: E402


def run(dump, workdir, name):
    import h5py
    import numpy as np
    geo = os.path.join(workdir, name + ".json")
    out = os.path.join(workdir, name + ".h5")
    mg.write(dump, geo)
    r = subprocess.run([mg.PY, os.path.join(HERE, "run_neuron.py"), geo, out, "--float64"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("FAIL: run_neuron.py %s exited %d\n%s%s" % (geo, r.returncode, r.stdout, r.stderr))
    with h5py.File(out, "r") as f:
        rep = f["report"][dump["population"]]
        return np.array(rep["data"][:], dtype=np.float64), np.array(rep["mapping/element_pos"][:], dtype=np.float64)


def cable_check(workdir):
    import numpy as np
    L, d, ra, cm, g, e, amp = 1000.0, 2.0, 100.0, 1.0, 1e-4, -70.0, 0.1
    rm = 1.0 / g                                           # ohm cm^2
    lam_cm = math.sqrt((d * 1e-4) * rm / (4.0 * ra))       # cm
    lam = lam_cm * 1e4                                     # um
    r_inf = ra * lam_cm / (math.pi * (d * 0.5e-4) ** 2) * 1e-6  # MOhm
    tau = rm * cm * 1e-3                                   # ms
    v0 = amp * r_inf / math.tanh(L / lam)                  # V(0) - E, mV

    def analytic(x_um):
        return e + amp * r_inf * np.cosh((L - x_um) / lam) / math.sinh(L / lam)

    ok = True
    errs, ends = {}, {}
    for nseg in (50, 100, 200):
        xs = [0.0] + [(i + 0.5) / nseg for i in range(nseg)] + [1.0]
        dump = mg.cable_dump(L, d, nseg, ra, cm, g, e, amp, x_stim=0.0, tfinal=40 * tau, dt=0.1,
                             sample_dt=10 * tau, probe_xs=xs)
        data, pos = run(dump, workdir, "cable_%d" % nseg)
        x_um = np.array(xs) * L
        err = np.max(np.abs(data[-1] - analytic(x_um)))
        drift = np.max(np.abs(data[-1] - data[-2]))
        errs[nseg] = err
        ends[nseg] = np.array([data[-1][0], data[-1][-1]])
        h2 = (L / nseg / lam) ** 2
        print("cable nseg %3d: max |V - V_analytic| = %.3e mV = %.4f (dx/lambda)^2 (V0-E); "
              "V(0) = %.6f (analytic %.6f); drift 20->30 tau %.1e mV" %
              (nseg, err, err / (h2 * v0), data[-1][0], analytic(0.0), drift))
        if not drift < 1e-6:
            print("FAIL: not at steady state")
            ok = False
        if nseg == 200 and not err < 0.15 * h2 * v0:
            print("FAIL: error %.3e exceeds 0.15 (dx/lambda)^2 (V0-E) = %.3e" % (err, 0.15 * h2 * v0))
            ok = False
    for a, b in ((50, 100), (100, 200)):
        order = math.log(errs[a] / errs[b], 2)
        print("cable: observed order between nseg %d and %d: %.3f" % (a, b, order))
        if not 1.9 <= order <= 2.1:
            print("FAIL: expected second-order convergence")
            ok = False
    rich = (4 * ends[200] - ends[100]) / 3
    exact = analytic(np.array([0.0, L]))
    rerr = np.max(np.abs(rich - exact))
    print("cable: Richardson-extrapolated V(0), V(L) = %.9f, %.9f; analytic %.9f, %.9f; error %.1e mV" %
          (rich[0], rich[1], exact[0], exact[1], rerr))
    if not rerr < 1e-6:
        print("FAIL: extrapolated ends differ from the analytic solution")
        ok = False
    return ok


def compartment_check(workdir):
    import numpy as np
    diam = length = 10.0
    cm, g, e, amp, delay, dur, dt = 1.0, 1e-3, -65.0, 0.01, 1.01, 2.0, 0.025
    tfinal = 5.0
    dump = mg.cable_dump(length, diam, 1, 35.4, cm, g, e, amp, x_stim=0.5, tfinal=tfinal, dt=dt,
                         sample_dt=dt, probe_xs=[0.0, 0.5, 1.0], delay=delay)
    dump["cells"][0]["point_processes"][0]["params"]["dur"] = dur
    data, _ = run(dump, workdir, "compartment")
    area = math.pi * diam * length
    C = 1e-5 * cm * area
    G = 1e-2 * g * area
    n = int(round(tfinal / dt))
    v = np.empty(n)
    v[0] = e
    for k in range(n - 1):
        mid = k * dt + dt / 2
        i = amp if delay <= mid < delay + dur else 0.0
        v[k + 1] = (C / dt * v[k] + G * e + i) / (C / dt + G)
    ok = data.shape == (n, 3)
    if not ok:
        print("FAIL: compartment: shape %s, expected (%d, 3)" % (data.shape, n))
        return False
    err = np.max(np.abs(data - v[:, None]))
    on = int(np.argmax(v > e + 1e-12))
    print("compartment: max |V - implicit Euler| = %.3e mV over %d frames; current first seen at t = %.3f; "
          "peak %.6f mV (steady state %.6f)" % (err, n, on * dt, v.max(), e + amp / G))
    if not err < 1e-9:
        print("FAIL: NEURON's trace differs from the implicit-Euler recurrence")
        ok = False
    if not abs(on * dt - 1.025) < 1e-9:
        print("FAIL: IClamp onset not in the step from t = 1.0")
        ok = False
    if not v.max() > e:
        print("FAIL: positive amp should depolarise")
        ok = False
    return ok


def main(argv):
    workdir = argv[0] if argv else tempfile.mkdtemp(prefix="check_passive_")
    os.makedirs(workdir, exist_ok=True)
    ok = compartment_check(workdir)
    ok = cable_check(workdir) and ok
    print("check_passive: %s" % ("passed" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
