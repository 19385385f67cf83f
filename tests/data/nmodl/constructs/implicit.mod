: METHOD derivimplicit on two coupled gates, linear in the states (one implicit Euler step,
: as NEURON's Newton iteration converges in one step).
NEURON {
    SUFFIX implicit
    NONSPECIFIC_CURRENT i
    RANGE gbar, e, g
}
UNITS { (S) = (siemens) (mV) = (millivolt) (mA) = (milliamp) }
PARAMETER {
    gbar = 0.001 (S/cm2)
    e = -60 (mV)
    kx = 0.3 (/ms)
}
ASSIGNED { v (mV) i (mA/cm2) g (S/cm2) a b }
STATE { p q }
BREAKPOINT {
    SOLVE states METHOD derivimplicit
    g = gbar*q
    i = g*(v - e)
}
DERIVATIVE states {
    a = 0.5*exp(v/30)
    b = 0.2*exp(-v/40)
    p' = a*(1 - p) - b*p - kx*(p - q)
    q' = kx*(p - q) - 0.1*q
}
INITIAL {
    p = 0.2
    q = 0.1
}
