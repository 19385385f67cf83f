: expect: 4: USEION
NEURON {
    SUFFIX kleak
    USEION k READ ek WRITE ik
    RANGE g
}
PARAMETER { g = 0.001 (S/cm2) }
ASSIGNED { v (mV) ek (mV) ik (mA/cm2) }
BREAKPOINT { ik = g*(v - ek) }
