#!/usr/bin/python3
"""Why NaV's device values differ from the host's more than the other translations' do
(tests/nmodl/test_nmodl_device.cu): the host's own difference with FMA contraction, and the
condition number of NaV's linear systems along the device test's inputs.

    nav_rounding.py NAV_HEADER_DIR NAV_MOD [--cxx g++]

NAV_HEADER_DIR: the folder of the translated NaV.hpp (a build's generated/nmodl_mechanisms);
NAV_MOD: Allen's NaV.mod (its rates are restated below and checked against its PARAMETER
block). Prints the largest relative difference beyond the test's 1e-15 floor between the
translation compiled with -ffp-contract=off (the project's) and with -mfma
-ffp-contract=fast (what the device does), and kappa_2 of the init system (LINEAR
seqinitial) and of the advance's I - dt·Q, with kappa·eps·n.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
N_SAMPLES, DT, CELSIUS = 256, 0.025, 34.0
STATES = ["C1", "C2", "C3", "C4", "C5", "I1", "I2", "I3", "I4", "I5", "O", "I6"]
# The KINETIC block's reactions: (from, to, forward rate, backward rate).
REACTIONS = [("C1", "C2", "f01", "b01"), ("C2", "C3", "f02", "b02"), ("C3", "C4", "f03", "b03"),
             ("C4", "C5", "f04", "b04"), ("C5", "O", "f0O", "b0O"), ("O", "I6", "fin", "bin"),
             ("I1", "I2", "f11", "b11"), ("I2", "I3", "f12", "b12"), ("I3", "I4", "f13", "b13"),
             ("I4", "I5", "f14", "b14"), ("I5", "I6", "f1n", "b1n"), ("C1", "I1", "fi1", "bi1"),
             ("C2", "I2", "fi2", "bi2"), ("C3", "I3", "fi3", "bi3"), ("C4", "I4", "fi4", "bi4"),
             ("C5", "I5", "fi5", "bi5")]


def parameters(mod):
    text = open(mod).read()
    block = re.search(r"PARAMETER\s*{(.*?)}", text, re.S).group(1)
    return {m.group(1): float(m.group(2)) for m in re.finditer(r"^\s*(\w+)\s*=\s*([-+.\deE]+)", block, re.M)}


def rates(p, v):
    qt = 2.3 ** ((CELSIUS - 37) / 10)
    ea, eb, af, bf = np.exp(v / p["x1"]), np.exp(v / p["x2"]), p["alfac"], p["btfac"]
    r = {"f0O": qt * p["gamma"], "f1n": qt * p["gamma"], "fin": qt * p["Oon"], "b0O": qt * p["delta"],
         "b1n": qt * p["delta"], "bin": qt * p["Ooff"]}
    for k in range(1, 5):
        r["f0%d" % k] = qt * (5 - k) * p["alpha"] * ea
        r["f1%d" % k] = qt * (5 - k) * p["alpha"] * af * ea
        r["b0%d" % k] = qt * k * p["beta"] * eb
        r["b1%d" % k] = qt * k * p["beta"] * eb / bf
    for k in range(1, 6):
        r["fi%d" % k] = qt * p["Con"] * af ** (k - 1)
        r["bi%d" % k] = qt * p["Coff"] / bf ** (k - 1)
    return r


def generator(r):
    ix = {s: i for i, s in enumerate(STATES)}
    q = np.zeros((12, 12))
    for a, b, f, g in REACTIONS:
        i, j = ix[a], ix[b]
        q[j, i] += r[f]
        q[i, i] -= r[f]
        q[i, j] += r[g]
        q[j, j] -= r[g]
    return q


def init_matrix(r):
    """seqinitial as NaV.mod writes it: the balance of C1..C5, O and I1..I5 (the generator's
    rows, but the .mod's I3 row reads I4*bi3 where the reaction list gives b13), then the
    conservation."""
    a = generator(r)[[0, 1, 2, 3, 4, 10, 5, 6, 7, 8, 9], :]
    a[8, STATES.index("I4")] = r["bi3"]  # the .mod's I3 row: I4*bi3
    a[8, STATES.index("I3")] = -(r["b12"] + r["bi3"] + r["f13"])
    return np.vstack([a, np.ones(12)])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("header_dir")
    ap.add_argument("mod")
    ap.add_argument("--cxx", default="g++")
    a = ap.parse_args()
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, flags in (("off", ["-ffp-contract=off"]), ("fma", ["-mfma", "-ffp-contract=fast"])):
            exe = os.path.join(tmp, "nav_" + name)
            subprocess.run([a.cxx, "-std=c++17", "-O2", *flags, "-I" + ROOT, "-I" + a.header_dir,
                            os.path.join(HERE, "nav_rounding_eval.cpp"), "-o", exe], check=True)
            out[name] = np.frombuffer(subprocess.run([exe], check=True, stdout=subprocess.PIPE).stdout)
    h, f = out["off"], out["fma"]
    width = h.size // N_SAMPLES
    with np.errstate(divide="ignore", invalid="ignore"):
        excess = np.where(h != 0, (np.abs(h - f) - 1e-15) / np.abs(h), 0.0)
    k = int(np.argmax(excess))
    print("host without and with FMA: %d of %d values differ; largest relative difference beyond 1e-15: %.3g "
          "(sample %d, value %d)" % (np.sum(h != f), h.size, excess[k], k // width, k % width))
    p = parameters(a.mod)
    ki, ka = [], []
    for s in range(N_SAMPLES):
        v = -100.0 + 150.0 * s / (N_SAMPLES - 1)
        ki.append(np.linalg.cond(init_matrix(rates(p, v))))
        ka.append(np.linalg.cond(np.eye(12) - DT * generator(rates(p, v + 0.5))))
    ki, ka = np.array(ki), np.array(ka)
    eps = 2.0 ** -53
    print("kappa_2 of the init system: %.3g to %.3g (largest at %.1f mV); kappa*eps*n = %.3g"
          % (ki.min(), ki.max(), -100 + 150 * ki.argmax() / (N_SAMPLES - 1), ki.max() * eps * 12))
    print("kappa_2 of the advance's I - dt*Q: at most %.3g; kappa*eps*n = %.3g" % (ka.max(), ka.max() * eps * 12))
    return 0


if __name__ == "__main__":
    sys.exit(main())
