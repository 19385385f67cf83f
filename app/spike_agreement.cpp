#include "app/spike_agreement.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace arbolito {

namespace {

bool same_train(const Spike& a, const Spike& b) { return a.gid == b.gid && a.source == b.source; }

bool train_before(const Spike& a, const Spike& b) { return a.gid != b.gid ? a.gid < b.gid : a.source < b.source; }

// Time order with NaN last, so that the sort stays a strict weak ordering whatever it gets.
bool earlier(double a, double b) { return std::isnan(b) ? !std::isnan(a) : a < b; }

void sort_by_train(std::vector<Spike>& s) {
    std::sort(s.begin(), s.end(), [](const Spike& a, const Spike& b) {
        return same_train(a, b) ? earlier(a.time, b.time) : train_before(a, b);
    });
}

bool same_bits(double a, double b) {
    std::uint64_t x, y;
    std::memcpy(&x, &a, sizeof x);
    std::memcpy(&y, &b, sizeof y);
    return x == y;
}

// The end of the train that starts at i.
std::size_t train_end(const std::vector<Spike>& s, std::size_t i) {
    std::size_t e = i;
    while (e < s.size() && same_train(s[e], s[i])) ++e;
    return e;
}

}  // namespace

SpikeAgreement spike_agreement(std::vector<Spike> spikes, std::vector<Spike> reference) {
    sort_by_train(spikes);
    sort_by_train(reference);
    SpikeAgreement a;
    a.n = spikes.size();
    a.n_ref = reference.size();
    a.identical = a.n == a.n_ref && std::equal(spikes.begin(), spikes.end(), reference.begin(),
                                               [](const Spike& x, const Spike& y) {
                                                   return same_train(x, y) && same_bits(x.time, y.time);
                                               });
    std::size_t i = 0, j = 0;  // the next train of spikes, of reference
    while (i < spikes.size() || j < reference.size()) {
        // A train in one list only: all its spikes unmatched.
        if (j == reference.size() || (i < spikes.size() && train_before(spikes[i], reference[j]))) {
            i = train_end(spikes, i);
            ++a.trains_differ;
            continue;
        }
        if (i == spikes.size() || train_before(reference[j], spikes[i])) {
            j = train_end(reference, j);
            ++a.trains_differ;
            continue;
        }
        const std::size_t ie = train_end(spikes, i), je = train_end(reference, j);
        if (ie - i != je - j) ++a.trains_differ;
        for (; i < ie && j < je; ++i, ++j) {
            const double d = std::fabs(spikes[i].time - reference[j].time);
            if (!std::isnan(a.max_dt) && !(d <= a.max_dt)) a.max_dt = d;  // a NaN stays: agrees() fails
            ++a.matched;
        }
        i = ie;
        j = je;
    }
    return a;
}

}  // namespace arbolito
