#pragma once
// A fixed team of std::threads that the spike exchange spreads its work over. Plain
// threads, not OpenMP: the exchange runs beside the cell update's OpenMP team, and a
// nested OpenMP team would either be serialised (max-active-levels 1) or compete with
// that team's spinning workers. Idle helpers sleep on a condition variable.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace arbolito {

class ThreadTeam {
public:
    explicit ThreadTeam(int n_threads);  // the caller counts as one of them
    ~ThreadTeam();
    ThreadTeam(const ThreadTeam&) = delete;
    ThreadTeam& operator=(const ThreadTeam&) = delete;

    int size() const { return static_cast<int>(helpers_.size()) + 1; }
    // Runs task(i) once for every i in [0, n), handed out one at a time to whichever
    // thread is free (the caller works too); returns when all have run and rethrows the
    // first exception a task threw. One caller at a time.
    void run(std::size_t n, const std::function<void(std::size_t)>& task);

private:
    void helper();
    void drain();

    std::vector<std::thread> helpers_;
    std::mutex mu_;
    std::condition_variable wake_, done_;
    std::uint64_t generation_ = 0;  // one per run() that woke the helpers
    bool stop_ = false;
    int busy_ = 0;  // helpers not yet through the current generation
    const std::function<void(std::size_t)>* task_ = nullptr;
    std::size_t n_ = 0;
    std::atomic<std::size_t> next_{0};
    std::exception_ptr error_;
};

}  // namespace arbolito
