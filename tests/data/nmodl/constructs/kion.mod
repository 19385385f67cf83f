: USEION k READ ek WRITE ik; a voltage shift assigned to v inside a PROCEDURE and undone
: (as Allen's Ca_LVA does); a q10 from celsius; cnexp.
NEURON {
    SUFFIX kion
    USEION k READ ek WRITE ik
    RANGE gbar, g, ik
}
UNITS { (S) = (siemens) (mV) = (millivolt) (mA) = (milliamp) }
PARAMETER {
    gbar = 0.02 (S/cm2)
    vshift = 5 (mV)
}
ASSIGNED { v (mV) ek (mV) ik (mA/cm2) g (S/cm2) celsius (degC) ninf ntau }
STATE { n }
BREAKPOINT {
    SOLVE states METHOD cnexp
    g = gbar*n*n
    ik = g*(v - ek)
}
DERIVATIVE states {
    rates()
    n' = (ninf - n)/ntau
}
INITIAL {
    rates()
    n = ninf
}
PROCEDURE rates() { LOCAL qt
    qt = 3^((celsius - 22)/10)
    v = v + vshift
    ninf = 1/(1 + exp(-(v + 30)/9))
    ntau = (1 + 4*exp(-((v + 40)/25)^2))/qt
    v = v - vshift
}
