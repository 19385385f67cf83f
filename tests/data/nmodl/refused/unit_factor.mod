: expect: 3: PI
NEURON { SUFFIX leak NONSPECIFIC_CURRENT i }
UNITS { PI = (pi) (1) }
PARAMETER { g = 0.001 (S/cm2) }
ASSIGNED { v (mV) i (mA/cm2) }
BREAKPOINT { i = g*v }
