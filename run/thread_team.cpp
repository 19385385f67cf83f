#include "run/thread_team.hpp"

namespace arbolito {

ThreadTeam::ThreadTeam(int n_threads) {
    for (int i = 1; i < n_threads; ++i) helpers_.emplace_back([this] { helper(); });
}

ThreadTeam::~ThreadTeam() {
    {
        std::lock_guard<std::mutex> lk(mu_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : helpers_) t.join();
}

void ThreadTeam::drain() {
    for (std::size_t i; (i = next_.fetch_add(1, std::memory_order_relaxed)) < n_;) {
        try {
            (*task_)(i);
        } catch (...) {
            std::lock_guard<std::mutex> lk(mu_);
            if (!error_) error_ = std::current_exception();
        }
    }
}

void ThreadTeam::helper() {
    std::uint64_t seen = 0;
    for (;;) {
        {
            std::unique_lock<std::mutex> lk(mu_);
            wake_.wait(lk, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
        }
        drain();
        std::lock_guard<std::mutex> lk(mu_);
        if (--busy_ == 0) done_.notify_one();
    }
}

void ThreadTeam::run(std::size_t n, const std::function<void(std::size_t)>& task) {
    if (helpers_.empty() || n <= 1) {  // not worth waking anyone
        for (std::size_t i = 0; i < n; ++i) task(i);
        return;
    }
    {
        std::lock_guard<std::mutex> lk(mu_);
        task_ = &task;
        n_ = n;
        next_.store(0, std::memory_order_relaxed);
        error_ = nullptr;
        busy_ = static_cast<int>(helpers_.size());
        ++generation_;
    }
    wake_.notify_all();
    drain();
    std::exception_ptr e;
    {
        std::unique_lock<std::mutex> lk(mu_);
        done_.wait(lk, [&] { return busy_ == 0; });
        task_ = nullptr;
        e = error_;
    }
    if (e) std::rethrow_exception(e);
}

}  // namespace arbolito
