: hh's sodium channel reading ena and writing ina (tests/mechanisms/test_ina.hpp).
NEURON {
    SUFFIX test_ina
    USEION na READ ena WRITE ina
    RANGE gnabar
}
UNITS { (mA) = (milliamp) (mV) = (millivolt) (S) = (siemens) }
PARAMETER { gnabar = 0.12 (S/cm2) }
ASSIGNED { v (mV) celsius (degC) ena (mV) ina (mA/cm2) minf hinf mtau (ms) htau (ms) }
STATE { m h }
BREAKPOINT {
    SOLVE states METHOD cnexp
    ina = gnabar*m*m*m*h*(v - ena)
}
INITIAL { rates(v) m = minf h = hinf }
DERIVATIVE states {
    rates(v)
    m' = (minf - m)/mtau
    h' = (hinf - h)/htau
}
PROCEDURE rates(v (mV)) { LOCAL a, b, q10
    q10 = 3^((celsius - 6.3)/10)
    a = .1 * vtrap(-(v+40),10)
    b = 4 * exp(-(v+65)/18)
    mtau = 1/(q10*(a + b))
    minf = a/(a + b)
    a = .07 * exp(-(v+65)/20)
    b = 1 / (exp(-(v+35)/10) + 1)
    htau = 1/(q10*(a + b))
    hinf = a/(a + b)
}
FUNCTION vtrap(x,y) {
    if (fabs(x/y) < 1e-6) { vtrap = y*(1 - x/y/2) } else { vtrap = x/(exp(x/y) - 1) }
}
