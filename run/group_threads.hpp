#pragma once
// One host thread per GPU cell group (docs/gpu-backend.md, "Several GPUs"): each group's
// epochs are driven from its own thread, so that the devices run side by side (a group's
// advance waits for its device at the epoch's end). Unlike ThreadTeam, which hands tasks
// to whichever thread is free, task i always runs on thread i; the caller is thread 0.
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace arbolito {

class GroupThreads {
public:
    explicit GroupThreads(int n_threads);
    ~GroupThreads();
    GroupThreads(const GroupThreads&) = delete;
    GroupThreads& operator=(const GroupThreads&) = delete;

    int size() const { return static_cast<int>(helpers_.size()) + 1; }
    // Runs task(i) on thread i for every i in [0, size()) and returns when all have run;
    // every task runs even if another throws, and the exception of the lowest i is rethrown.
    // One caller at a time.
    void run(const std::function<void(int)>& task);

private:
    void helper(int i);

    std::vector<std::thread> helpers_;
    std::mutex mu_;
    std::condition_variable wake_, done_;
    std::uint64_t generation_ = 0;
    bool stop_ = false;
    int busy_ = 0;
    const std::function<void(int)>* task_ = nullptr;
    std::vector<std::exception_ptr> errors_;
};

}  // namespace arbolito
