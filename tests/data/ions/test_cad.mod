: A calcium shell with a pump, in the form of the Allen models' CaDynamics
: (tests/mechanisms/test_cad.hpp): cai a state written to the ca ion.
NEURON {
    SUFFIX test_cad
    USEION ca READ ica WRITE cai
    RANGE gamma, decay, depth, minCai
}
UNITS { (mA) = (milliamp) (mM) = (milli/liter) (um) = (micron) FARADAY = (faraday) (coulombs) }
PARAMETER { gamma = 0.05 decay = 80 (ms) depth = 0.1 (um) minCai = 1e-4 (mM) }
ASSIGNED { ica (mA/cm2) }
STATE { cai (mM) }
INITIAL { cai = minCai }
BREAKPOINT { SOLVE states METHOD cnexp }
DERIVATIVE states {
    cai' = -(10000)*(ica*gamma/(2*FARADAY*depth)) - (cai - minCai)/decay
}
