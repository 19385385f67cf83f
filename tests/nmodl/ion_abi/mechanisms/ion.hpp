#pragma once
// The mechanism side of the ion ABI (IonUse and its flags), for building the translator's
// tests where the engine's mechanisms/ion.hpp is not in the tree yet; the engine's header,
// where it exists, is used instead (tests/nmodl.cmake).
namespace arbolito {

enum IonFlag : unsigned {
    ion_read_e = 1u << 0,
    ion_read_xi = 1u << 1,
    ion_read_xo = 1u << 2,
    ion_read_i = 1u << 3,
    ion_write_i = 1u << 4,
    ion_write_xi = 1u << 5,
    ion_write_xo = 1u << 6,
};

struct IonUse {
    const char* name;
    int valence;
    unsigned flags;
};

}  // namespace arbolito
