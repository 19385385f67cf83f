: expect: 4: cai
NEURON {
    SUFFIX capump
    USEION ca READ ica WRITE cai
}
ASSIGNED { ica (mA/cm2) cai (mM) }
BREAKPOINT { cai = 1e-4 - ica }
