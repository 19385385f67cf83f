#pragma once
// SIGINT and SIGTERM during a run. The first asks the run to stop (within a step: see
// Simulation::run) and keep what it simulated (command_run); the handler only stores the signal
// (a lock-free atomic: async-signal-safe). A second one ends the process at once, as the
// signal would have without the handler.
#include <csignal>

namespace arbolito {

class StopSignals {
public:
    StopSignals();   // installs the handlers
    ~StopSignals();  // restores the previous ones
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

    static int received();  // the signal received, 0 for none
    static const char* name(int sig);  // "SIGINT", "SIGTERM"

private:
    struct sigaction old_int_ {}, old_term_ {};
};

}  // namespace arbolito
