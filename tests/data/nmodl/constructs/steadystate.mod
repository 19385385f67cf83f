: KINETIC with METHOD sparse, a reaction rate from a FUNCTION, and the scheme's equilibrium
: at v_init in INITIAL (SOLVE ... STEADYSTATE sparse).
NEURON {
    SUFFIX steadystate
    USEION k READ ek WRITE ik
    RANGE gbar, g
}
UNITS { (S) = (siemens) (mV) = (millivolt) (mA) = (milliamp) }
PARAMETER {
    gbar = 0.02 (S/cm2)
    a0 = 0.4 (/ms)
    b0 = 0.1 (/ms)
}
ASSIGNED { v (mV) ek (mV) ik (mA/cm2) g (S/cm2) }
STATE { c1 c2 o }
BREAKPOINT {
    SOLVE scheme METHOD sparse
    g = gbar*o
    ik = g*(v - ek)
}
INITIAL { SOLVE scheme STEADYSTATE sparse }
KINETIC scheme {
    ~ c1 <-> c2 (rate(v, a0, 25), rate(v, b0, -25))
    ~ c2 <-> o (2*rate(v, a0, 30), 0.5*rate(v, b0, -20))
    CONSERVE c1 + c2 + o = 1
}
FUNCTION rate(vm (mV), r (/ms), k (mV)) (/ms) {
    rate = r*exp(vm/k)
}
