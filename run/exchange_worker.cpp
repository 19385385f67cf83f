#include "run/exchange_worker.hpp"

#include <stdexcept>
#include <utility>

namespace arbolito {

ExchangeWorker::ExchangeWorker() : thread_([this] { loop(); }) {}

ExchangeWorker::~ExchangeWorker() {
    {
        std::lock_guard<std::mutex> lk(mu_);
        stop_ = true;
    }
    wake_.notify_one();
    thread_.join();
}

void ExchangeWorker::loop() {
    for (;;) {
        std::function<bool()> task;
        {
            std::unique_lock<std::mutex> lk(mu_);
            // A task handed over before the stop still runs: its caller waits for it.
            wake_.wait(lk, [&] { return stop_ || task_; });
            if (!task_) return;
            task = std::move(task_);
            task_ = nullptr;
        }
        bool r = false;
        std::exception_ptr e;
        try {
            r = task();
        } catch (...) {
            e = std::current_exception();
        }
        {
            std::lock_guard<std::mutex> lk(mu_);
            result_ = r;
            error_ = e;
            busy_ = false;
        }
        done_.notify_one();
    }
}

void ExchangeWorker::start(std::function<bool()> task) {
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (busy_) throw std::logic_error("ExchangeWorker::start: the previous task was not waited for");
        task_ = std::move(task);
        busy_ = true;
    }
    wake_.notify_one();
}

bool ExchangeWorker::wait() {
    std::unique_lock<std::mutex> lk(mu_);
    done_.wait(lk, [&] { return !busy_; });
    if (error_) {
        const std::exception_ptr e = error_;
        error_ = nullptr;
        std::rethrow_exception(e);
    }
    return result_;
}

}  // namespace arbolito
