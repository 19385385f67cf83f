: expect: 7: SOLVE scheme
NEURON { SUFFIX twostate NONSPECIFIC_CURRENT i }
PARAMETER { g = 0.001 (S/cm2) a = 0.1 (/ms) b = 0.2 (/ms) }
STATE { c o }
ASSIGNED { v (mV) i (mA/cm2) }
BREAKPOINT {
    SOLVE scheme METHOD cnexp
    i = g*o*v
}
KINETIC scheme {
    ~ c <-> o (a, b)
}
