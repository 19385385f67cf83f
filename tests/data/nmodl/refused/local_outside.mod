: expect: 5: LOCAL
NEURON { SUFFIX leak NONSPECIFIC_CURRENT i }
PARAMETER { g = 0.001 (S/cm2) }
ASSIGNED { v (mV) i (mA/cm2) }
LOCAL q
BREAKPOINT { i = g*v }
