: USEION ca READ eca, cai WRITE ica: a calcium current whose gate depends on cai (as SK);
: cnexp; an if/else on a concentration.
NEURON {
    SUFFIX cachan
    USEION ca READ eca, cai WRITE ica
    RANGE gbar, g, ica
}
UNITS { (S) = (siemens) (mV) = (millivolt) (mA) = (milliamp) (mM) = (milli/liter) }
PARAMETER {
    gbar = 0.002 (S/cm2)
    kd = 5e-4 (mM)
}
ASSIGNED { v (mV) eca (mV) ica (mA/cm2) cai (mM) g (S/cm2) minf mtau hinf }
STATE { m }
BREAKPOINT {
    SOLVE states METHOD cnexp
    hinf = kd/(kd + cai)
    g = gbar*m*m*hinf
    ica = g*(v - eca)
}
DERIVATIVE states {
    minf = 1/(1 + exp(-(v + 20)/6))
    if (v < -50) {
        mtau = 2
    } else {
        mtau = 0.5 + 1.5*exp(-(v + 50)/20)
    }
    m' = (minf - m)/mtau
}
INITIAL {
    minf = 1/(1 + exp(-(v + 20)/6))
    m = minf
}
