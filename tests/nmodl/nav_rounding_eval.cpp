// NaV's init, current and advance along NmodlDevice.TranslationsAgreeWithTheHost's inputs
// (test_nmodl_device.cu: 256 voltages from -100 to 50 mV, default parameters, 34 degC, ena
// 50 mV), the values as raw doubles on stdout. tests/nmodl/nav_rounding.py compiles it with
// and without FMA contraction and compares.
#include <cstdio>
#include <vector>
#include "NaV.hpp"
using namespace arbolito;
constexpr int n_samples = 256;
int main() {
    using M = NaV;
    constexpr int ns = n_states<M>;
    std::vector<double> p(64, 0.0), ion(64, 0.0);
    for (int j = 0; j < n_params<M>; ++j) p[j] = M::params[j].default_value;
    ion[0] = 50.0; ion[1] = 10.0; ion[2] = 140.0; ion[3] = 0.0;
    const auto gl = M::globals(34.0);
    const int width = 2 * ns + 2;
    std::vector<double> out(n_samples * width);
    for (int k = 0; k < n_samples; ++k) {
        const double v = -100.0 + 150.0 * k / (n_samples - 1);
        double s[64] = {}, ion_i[64] = {}, i = 0, g = 0;
        double* o = out.data() + k * width;
        M::init(v, gl, p.data(), s, ion.data());
        for (int j = 0; j < ns; ++j) o[j] = s[j];
        M::current<double>(v, 0.0, gl, p.data(), s, nullptr, ion.data(), i, g, ion_i);
        M::advance<double>(v + 0.5, 0.025, gl, p.data(), s, nullptr, ion.data());
        o[ns] = i; o[ns + 1] = g;
        for (int j = 0; j < ns; ++j) o[ns + 2 + j] = s[j];
    }
    fwrite(out.data(), sizeof(double), out.size(), stdout);
}
