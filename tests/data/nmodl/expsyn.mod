: Single-exponential conductance synapse: an event of weight w adds w to g, which decays with
: time constant tau; i = g (v - e). Written for arbolito's tests (defaults as arbolito's expsyn).
TITLE single-exponential conductance synapse

UNITS {
    (nA) = (nanoamp)
    (mV) = (millivolt)
    (uS) = (microsiemens)
}

NEURON {
    POINT_PROCESS expsyn
    RANGE tau, e
    NONSPECIFIC_CURRENT i
}

PARAMETER {
    tau = 2 (ms) <0, 1e9>
    e = 0 (mV)
}

ASSIGNED {
    v (mV)
    i (nA)
}

STATE { g (uS) }

INITIAL { g = 0 }

BREAKPOINT {
    SOLVE decay METHOD cnexp
    i = g*(v - e)
}

DERIVATIVE decay {
    g' = -g/tau
}

NET_RECEIVE(weight (uS)) {
    g = g + weight
}
