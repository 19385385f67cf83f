: expect: 8: tau
NEURON { SUFFIX gate NONSPECIFIC_CURRENT i }
PARAMETER { g = 0.001 (S/cm2) }
STATE { n }
ASSIGNED { v (mV) i (mA/cm2) tau (ms) }
INITIAL { tau = 5  n = 0 }
BREAKPOINT { SOLVE st METHOD cnexp i = g*n*v }
DERIVATIVE st { n' = (1 - n)/tau }
