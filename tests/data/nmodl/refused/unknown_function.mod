: expect: 6: tanh
NEURON { SUFFIX leak NONSPECIFIC_CURRENT i }
PARAMETER { g = 0.001 (S/cm2) }
ASSIGNED { v (mV) i (mA/cm2) }
BREAKPOINT {
    i = g*tanh(v)
}
