#include "app/stop_signals.hpp"

#include <atomic>

namespace arbolito {

namespace {

std::atomic<int> received_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free flag");

extern "C" void on_stop_signal(int sig) {
    if (received_signal.load() != 0) {
        // Asked twice: the default action, now (signal and raise are async-signal-safe).
        std::signal(sig, SIG_DFL);
        std::raise(sig);
        return;
    }
    received_signal.store(sig);
}

}  // namespace

StopSignals::StopSignals() {
    received_signal.store(0);
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;  // writes and reads in progress carry on
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
}

StopSignals::~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
}

int StopSignals::received() { return received_signal.load(); }

const char* StopSignals::name(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal"; }

}  // namespace arbolito
