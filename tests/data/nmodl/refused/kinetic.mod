: expect: 11: ~
NEURON { SUFFIX dimer NONSPECIFIC_CURRENT i }
PARAMETER { g = 0.001 (S/cm2) a = 0.1 (/ms) b = 0.2 (/ms) }
STATE { c o }
ASSIGNED { v (mV) i (mA/cm2) }
BREAKPOINT {
    SOLVE scheme METHOD sparse
    i = g*o*v
}
KINETIC scheme {
    ~ 2c <-> o (a, b)
}
