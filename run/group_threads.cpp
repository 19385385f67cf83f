#include "run/group_threads.hpp"

namespace arbolito {

GroupThreads::GroupThreads(int n_threads) : errors_(n_threads > 1 ? n_threads : 1) {
    for (int i = 1; i < n_threads; ++i) helpers_.emplace_back([this, i] { helper(i); });
}

GroupThreads::~GroupThreads() {
    {
        std::lock_guard<std::mutex> lk(mu_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : helpers_) t.join();
}

void GroupThreads::helper(int i) {
    std::uint64_t seen = 0;
    for (;;) {
        const std::function<void(int)>* task = nullptr;
        {
            std::unique_lock<std::mutex> lk(mu_);
            wake_.wait(lk, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            task = task_;
        }
        std::exception_ptr e;
        try {
            (*task)(i);
        } catch (...) {
            e = std::current_exception();
        }
        std::lock_guard<std::mutex> lk(mu_);
        errors_[i] = e;
        if (--busy_ == 0) done_.notify_one();
    }
}

void GroupThreads::run(const std::function<void(int)>& task) {
    {
        std::lock_guard<std::mutex> lk(mu_);
        task_ = &task;
        busy_ = static_cast<int>(helpers_.size());
        ++generation_;
    }
    wake_.notify_all();
    std::exception_ptr mine;
    try {
        task(0);
    } catch (...) {
        mine = std::current_exception();
    }
    std::unique_lock<std::mutex> lk(mu_);
    done_.wait(lk, [&] { return busy_ == 0; });
    task_ = nullptr;
    errors_[0] = mine;
    for (auto& e : errors_)
        if (e) {
            const std::exception_ptr first = e;
            for (auto& x : errors_) x = nullptr;
            lk.unlock();
            std::rethrow_exception(first);
        }
}

}  // namespace arbolito
