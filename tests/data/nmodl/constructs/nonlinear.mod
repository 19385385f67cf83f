: METHOD derivimplicit on an equation not linear in its state, with a rate computed from
: the state before the equation (Newton's method, as NEURON's derivimplicit).
NEURON {
    SUFFIX nonlinear
    NONSPECIFIC_CURRENT i
    RANGE gbar, e, g
}
UNITS { (S) = (siemens) (mV) = (millivolt) (mA) = (milliamp) }
PARAMETER {
    gbar = 0.001 (S/cm2)
    e = -60 (mV)
}
ASSIGNED { v (mV) i (mA/cm2) g (S/cm2) k }
STATE { n }
BREAKPOINT {
    SOLVE states METHOD derivimplicit
    g = gbar*n
    i = g*(v - e)
}
DERIVATIVE states {
    k = 0.1*exp(v/20)*(1 + n)
    n' = 0.5*(1 - n*n) - k*n
}
INITIAL { n = 0.3 }
