#include "run/timeline.hpp"

#include <atomic>
#include <chrono>
#include <iomanip>
#include <mutex>
#include <ostream>

namespace arbolito::timeline {

namespace {

using Clock = std::chrono::steady_clock;

std::atomic<bool> on{false};
std::mutex guard;  // the fields below
Clock::time_point t0;
std::vector<Mark> made;
int threads = 0;
int generation = 0;  // start() count: a thread's number is valid for one timeline

}  // namespace

void start() {
    std::lock_guard<std::mutex> lock(guard);
    made.clear();
    threads = 0;
    ++generation;
    t0 = Clock::now();
    on.store(true, std::memory_order_release);
}

void stop() { on.store(false, std::memory_order_release); }

void mark(const char* what, long step) {
    if (!on.load(std::memory_order_relaxed)) return;
    const Clock::time_point t = Clock::now();
    thread_local int id = -1, id_generation = -1;
    std::lock_guard<std::mutex> lock(guard);
    if (id_generation != generation) {
        id = threads++;
        id_generation = generation;
    }
    made.push_back({id, std::chrono::duration<double, std::micro>(t - t0).count(), what, step});
}

std::vector<Mark> marks() {
    std::lock_guard<std::mutex> lock(guard);
    return made;
}

void write_csv(std::ostream& out, const std::vector<Mark>& marks) {
    out << "thread,us,mark,step\n" << std::fixed << std::setprecision(1);
    for (const Mark& m : marks) out << m.thread << ',' << m.us << ',' << m.what << ',' << m.step << '\n';
}

}  // namespace arbolito::timeline
