: expect: 11: '
NEURON { SUFFIX gate NONSPECIFIC_CURRENT i }
PARAMETER { g = 0.001 (S/cm2) }
STATE { n }
ASSIGNED { v (mV) i (mA/cm2) r }
BREAKPOINT {
    SOLVE st METHOD derivimplicit
    i = g*n*v
}
DERIVATIVE st {
    n' = 1 - n
    r = n
}
