: A calcium channel with one gate, reading eca and writing ica (tests/mechanisms/test_ica.hpp).
NEURON {
    SUFFIX test_ica
    USEION ca READ eca WRITE ica
    RANGE gbar, mtau
}
UNITS { (mA) = (milliamp) (mV) = (millivolt) (S) = (siemens) }
PARAMETER { gbar = 1e-3 (S/cm2) mtau = 1.5 (ms) }
ASSIGNED { v (mV) eca (mV) ica (mA/cm2) minf }
STATE { m }
BREAKPOINT {
    SOLVE states METHOD cnexp
    ica = gbar*m*m*(v - eca)
}
INITIAL { minf = 1/(1 + exp(-(v + 30)/6)) m = minf }
DERIVATIVE states {
    minf = 1/(1 + exp(-(v + 30)/6))
    m' = (minf - m)/mtau
}
