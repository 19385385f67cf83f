// The host's math::exp and math::log, in a translation unit of their own so that they
// are compiled with the host code's flags (-ffp-contract=off, ARBOLITO_ARCH), not as the
// host side of a .cu file.
#include "core/math.hpp"
#include "tests/support/exp_log_samples.hpp"

namespace arbolito::test_exp_log {

std::vector<double> host_exp(const std::vector<double>& x) {
    std::vector<double> r(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) r[i] = math::exp(x[i]);
    return r;
}

std::vector<double> host_log(const std::vector<double>& x) {
    std::vector<double> r(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) r[i] = math::log(x[i]);
    return r;
}

}  // namespace arbolito::test_exp_log
