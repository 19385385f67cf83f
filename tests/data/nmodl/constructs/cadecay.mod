: USEION ca READ ica WRITE cai: a written concentration as a STATE; FARADAY from UNITS;
: a parameter named gamma (a sympy function's name); cnexp.
NEURON {
    SUFFIX cadecay
    USEION ca READ ica WRITE cai
    RANGE gamma, decay, depth, cainf
}
UNITS { (mM) = (milli/liter) (um) = (micron) (mA) = (milliamp) FARADAY = (faraday) (coulombs) }
PARAMETER {
    gamma = 0.05
    decay = 20 (ms)
    depth = 0.1 (um)
    cainf = 1e-4 (mM)
}
ASSIGNED { ica (mA/cm2) }
STATE { cai (mM) }
INITIAL { cai = cainf }
BREAKPOINT { SOLVE states METHOD cnexp }
DERIVATIVE states {
    cai' = -10000*ica*gamma/(2*FARADAY*depth) - (cai - cainf)/decay
}
