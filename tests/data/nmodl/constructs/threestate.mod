: KINETIC with METHOD sparse and CONSERVE; a LINEAR block for the initial equilibrium,
: solved in INITIAL (as Allen's NaV does); states named O and beta-like rates (sympy names).
NEURON {
    SUFFIX threestate
    USEION na READ ena WRITE ina
    RANGE gbar, g
}
UNITS { (S) = (siemens) (mV) = (millivolt) (mA) = (milliamp) }
PARAMETER {
    gbar = 0.05 (S/cm2)
    alpha = 2 (/ms)
    beta = 0.5 (/ms)
    gamma = 0.8 (/ms)
    delta = 0.05 (/ms)
}
ASSIGNED { v (mV) ena (mV) ina (mA/cm2) g (S/cm2) kco koc koi kio }
STATE { C O I }
BREAKPOINT {
    SOLVE scheme METHOD sparse
    g = gbar*O
    ina = g*(v - ena)
}
INITIAL {
    rates(v)
    SOLVE equilibrium
}
KINETIC scheme {
    rates(v)
    ~ C <-> O (kco, koc)
    ~ O <-> I (koi, kio)
    CONSERVE C + O + I = 1
}
LINEAR equilibrium {
    ~ O*koc - C*kco = 0
    ~ C*kco + I*kio - O*(koc + koi) = 0
    ~ C + O + I = 1
}
PROCEDURE rates(vm (mV)) {
    kco = alpha*exp(vm/20)
    koc = beta*exp(-vm/20)
    koi = gamma
    kio = delta*exp(-vm/30)
}
