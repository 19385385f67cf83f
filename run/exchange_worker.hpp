#pragma once
// The thread the pipelined exchange runs on (run/simulation.cpp): started once for the
// run and handed one exchange per epoch, instead of a thread started and joined every
// epoch. One task at a time: start() hands it over, wait() returns its result or
// rethrows what it threw.
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace arbolito {

class ExchangeWorker {
public:
    ExchangeWorker();
    ~ExchangeWorker();
    ExchangeWorker(const ExchangeWorker&) = delete;
    ExchangeWorker& operator=(const ExchangeWorker&) = delete;

    // Runs task on the worker; at most one task is outstanding (wait() before the next).
    void start(std::function<bool()> task);
    // The outstanding task's result, once it has run; rethrows its exception.
    bool wait();

private:
    void loop();

    std::mutex mu_;
    std::condition_variable wake_, done_;
    std::function<bool()> task_;  // set: handed over, not yet taken
    bool busy_ = false;           // a task handed over and not yet finished
    bool stop_ = false;
    bool result_ = false;
    std::exception_ptr error_;
    std::thread thread_;  // last: started once the fields above exist
};

}  // namespace arbolito
