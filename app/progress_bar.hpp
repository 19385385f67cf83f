#pragma once
// A one-line progress bar on stderr, shown only once a run has taken a couple of seconds:
// simulated time, wall time so far and the time left at the rate so far.
#include <chrono>
#include <cstdio>

#include <unistd.h>

namespace arbolito {

class ProgressBar {
public:
    explicit ProgressBar(double tfinal)
        : tfinal_(tfinal), start_(std::chrono::steady_clock::now()), tty_(isatty(STDERR_FILENO) != 0) {}
    void update(double t) {
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        if (!tty_ || s < 2.0 || tfinal_ <= 0) return;
        const int width = 40, filled = static_cast<int>(width * t / tfinal_);
        if (filled == last_ && t < tfinal_) return;
        last_ = filled;
        // Remaining time by the rate so far (simulated ms per wall second).
        const double left = t > 0 ? s * (tfinal_ - t) / t : 0.0;
        std::fprintf(stderr, "\r[%-*.*s] %6.1f / %.1f ms  %5.1f s, %5.1f s left ", width, filled,
                     "########################################", t, tfinal_, s, left);
        if (t >= tfinal_) std::fprintf(stderr, "\n");
        shown_ = true;
        line_open_ = t < tfinal_;
    }
    // Ends a bar left part-way (a run stopped early) so that the next line starts clean.
    void end_line() {
        if (line_open_) std::fprintf(stderr, "\n");
        line_open_ = false;
    }
    ~ProgressBar() {
        if (shown_) std::fflush(stderr);
    }

private:
    double tfinal_;
    std::chrono::steady_clock::time_point start_;
    int last_ = -1;
    bool shown_ = false;
    bool line_open_ = false;  // the bar is on the current line
    bool tty_;
};

}  // namespace arbolito
