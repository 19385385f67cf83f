: Hodgkin-Huxley squid axon channels (J. Physiol. 117:500, 1952) in NEURON's conventions:
: membrane potential in mV, resting near -65 mV, rates in 1/ms scaled by 3^((celsius - 6.3)/10).
: Written for arbolito's tests from the equations; the reversal potentials are parameters and
: the three currents nonspecific (no ions), as arbolito's built-in hh.
TITLE Hodgkin-Huxley sodium, potassium and leak channels

UNITS {
    (mA) = (milliamp)
    (mV) = (millivolt)
    (S) = (siemens)
}

NEURON {
    SUFFIX hh
    NONSPECIFIC_CURRENT ina, ik, il
    RANGE gnabar, gkbar, gl, ena, ek, el
}

PARAMETER {
    gnabar = 0.12 (S/cm2) <0, 1e9>
    gkbar = 0.036 (S/cm2) <0, 1e9>
    gl = 0.0003 (S/cm2) <0, 1e9>
    ena = 50 (mV)
    ek = -77 (mV)
    el = -54.3 (mV)
}

STATE { m h n }

ASSIGNED {
    v (mV)
    celsius (degC)
    ina (mA/cm2)
    ik (mA/cm2)
    il (mA/cm2)
    gna (S/cm2)
    gk (S/cm2)
    minf hinf ninf
    mtau (ms) htau (ms) ntau (ms)
}

BREAKPOINT {
    SOLVE gates METHOD cnexp
    gna = gnabar*m*m*m*h
    gk = gkbar*n*n*n*n
    ina = gna*(v - ena)
    ik = gk*(v - ek)
    il = gl*(v - el)
}

INITIAL {
    rates(v)
    m = minf
    h = hinf
    n = ninf
}

DERIVATIVE gates {
    rates(v)
    m' = (minf - m)/mtau
    h' = (hinf - h)/htau
    n' = (ninf - n)/ntau
}

: Steady states and time constants of the three gates at membrane potential u.
PROCEDURE rates(u (mV)) {
    LOCAL a, b, s, q10
    q10 = 3^((celsius - 6.3)/10)
    a = 0.1*expm1_ratio(-(u + 40), 10)
    b = 4*exp(-(u + 65)/18)
    s = a + b
    mtau = 1/(q10*s)
    minf = a/s
    a = 0.07*exp(-(u + 65)/20)
    b = 1/(exp(-(u + 35)/10) + 1)
    s = a + b
    htau = 1/(q10*s)
    hinf = a/s
    a = 0.01*expm1_ratio(-(u + 55), 10)
    b = 0.125*exp(-(u + 65)/80)
    s = a + b
    ntau = 1/(q10*s)
    ninf = a/s
}

: x/(exp(x/y) - 1), with its limit y(1 - x/(2y)) where x/y is near 0.
FUNCTION expm1_ratio(x, y) {
    if (fabs(x/y) < 1e-6) {
        expm1_ratio = y*(1 - x/y/2)
    } else {
        expm1_ratio = x/(exp(x/y) - 1)
    }
}
