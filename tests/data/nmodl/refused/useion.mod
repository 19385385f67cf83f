: expect: 4: USEION x
NEURON {
    SUFFIX xleak
    USEION x READ ex WRITE ix
    RANGE g
}
PARAMETER { g = 0.001 (S/cm2) }
ASSIGNED { v (mV) ex (mV) ix (mA/cm2) }
BREAKPOINT { ix = g*(v - ex) }
