: expect: 12: TABLE
NEURON { SUFFIX gate NONSPECIFIC_CURRENT i }
PARAMETER { g = 0.001 (S/cm2) }
STATE { n }
ASSIGNED { v (mV) i (mA/cm2) ninf }
BREAKPOINT {
    SOLVE st METHOD cnexp
    i = g*n*v
}
DERIVATIVE st { rates(v) n' = ninf - n }
PROCEDURE rates(u) {
    TABLE ninf FROM -100 TO 100 WITH 200
    ninf = 1/(1 + exp(-u))
}
