#pragma once
// How the ranks of a run talk to each other (docs/mpi.md): the few collectives the epoch
// loop and the output need. One serial implementation (a single rank: every collective
// is a copy) and, when built with MPI, one over MPI_COMM_WORLD (run/communicator.cpp).
// Collectives must be called by every rank in the same order; the MPI implementation
// serialises its calls with a mutex, so that the loop's exchange thread and its main
// thread never call MPI at the same time (MPI_THREAD_SERIALIZED).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace arbolito {

// Thrown on the ranks that did not fail when another rank did: every rank stops, and
// only the failing one has something to say.
struct PeerFailure : std::runtime_error {
    PeerFailure() : std::runtime_error("stopped because another rank failed (see its message)") {}
};

class Communicator {
public:
    virtual ~Communicator() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    bool is_root() const { return rank() == 0; }
    // This rank among the ranks on its node (shared memory), and their number: GPU runs
    // give local rank r the node's GPU r mod (GPUs on the node).
    virtual int local_rank() const = 0;
    virtual int local_size() const = 0;
    // Whether a second thread may run collectives while the first computes: the pipelined
    // exchange needs MPI_THREAD_SERIALIZED; without it the run exchanges unpipelined.
    virtual bool thread_serialized() const = 0;
    virtual std::string describe() const = 0;  // "serial" or "MPI, 2 ranks, ..." for the log
    // Wall seconds spent inside collectives so far (0 for the serial one).
    virtual double seconds() const = 0;

    // Each rank's `n` bytes, in rank order, into `all` (size()·n bytes), on every rank.
    virtual void all_gather_bytes(const void* mine, std::size_t n, void* all) = 0;
    // Rank r's counts[r] bytes, in rank order, into `all` (Σ counts bytes), on every rank.
    virtual void all_gather_bytes_v(const void* mine, const std::vector<std::size_t>& counts, void* all) = 0;
    // The same, received on rank 0 only (`all` is not touched elsewhere).
    virtual void gather_bytes_v(const void* mine, const std::vector<std::size_t>& counts, void* all) = 0;
    // Element-wise over ranks, in place, on every rank.
    virtual void sum(double* v, std::size_t n) = 0;
    virtual void max(double* v, std::size_t n) = 0;

    // Typed forms (trivially copyable element types; all ranks share one architecture).
    template <class T>
    std::vector<T> all_gather(const T& mine) {
        static_assert(std::is_trivially_copyable_v<T>);
        std::vector<T> all(size());
        all_gather_bytes(&mine, sizeof(T), all.data());
        return all;
    }
    // counts: elements per rank (every rank passes the same counts).
    template <class T>
    std::vector<T> all_gather_v(const std::vector<T>& mine, const std::vector<std::size_t>& counts) {
        static_assert(std::is_trivially_copyable_v<T>);
        std::vector<T> all(total(counts));
        all_gather_bytes_v(mine.data(), bytes(counts, sizeof(T)), all.data());
        return all;
    }
    template <class T>
    std::vector<T> gather_v(const std::vector<T>& mine, const std::vector<std::size_t>& counts) {
        static_assert(std::is_trivially_copyable_v<T>);
        std::vector<T> all(is_root() ? total(counts) : 0);
        gather_bytes_v(mine.data(), bytes(counts, sizeof(T)), all.data());
        return all;
    }
    // Every rank's vector concatenated in rank order, on rank 0 (empty elsewhere); the
    // sizes are gathered first, so they may differ.
    template <class T>
    std::vector<T> gather(const std::vector<T>& mine) {
        const std::uint64_t n = mine.size();
        const auto sizes = all_gather(n);
        return gather_v(mine, std::vector<std::size_t>(sizes.begin(), sizes.end()));
    }
    // True on every rank iff `ok` on every rank.
    bool all(bool ok) {
        double failed = ok ? 0 : 1;
        max(&failed, 1);
        return failed == 0;
    }

private:
    static std::size_t total(const std::vector<std::size_t>& c) {
        std::size_t t = 0;
        for (auto x : c) t += x;
        return t;
    }
    static std::vector<std::size_t> bytes(std::vector<std::size_t> c, std::size_t width) {
        for (auto& x : c) x *= width;
        return c;
    }
};

// One rank: collectives copy.
class SerialCommunicator : public Communicator {
public:
    int rank() const override { return 0; }
    int size() const override { return 1; }
    int local_rank() const override { return 0; }
    int local_size() const override { return 1; }
    bool thread_serialized() const override { return true; }
    std::string describe() const override { return "serial"; }
    double seconds() const override { return 0; }
    void all_gather_bytes(const void* mine, std::size_t n, void* all) override { copy(all, mine, n); }
    void all_gather_bytes_v(const void* mine, const std::vector<std::size_t>& c, void* all) override { copy(all, mine, c.at(0)); }
    void gather_bytes_v(const void* mine, const std::vector<std::size_t>& c, void* all) override { copy(all, mine, c.at(0)); }
    void sum(double*, std::size_t) override {}
    void max(double*, std::size_t) override {}

private:
    static void copy(void* to, const void* from, std::size_t n) {
        if (n > 0) std::memcpy(to, from, n);
    }
};

// The communicator of this process. With MPI built in and the process started by an MPI
// launcher (mpirun, mpiexec, srun: recognised by the environment they set), MPI is
// initialised with MPI_Init_thread(MPI_THREAD_SERIALIZED) and finalised when the returned
// object is destroyed. Otherwise the serial one: a plain start then skips MPI's start-up
// (about 0.4 s as a singleton with Open MPI). Throws std::runtime_error when the launcher
// asked for several ranks and this build has no MPI (each rank would run the whole model).
std::unique_ptr<Communicator> make_world_communicator(int& argc, char**& argv);

// Runs f on every rank, then agrees on the outcome: if f threw anywhere, every rank
// throws, the failing ranks their own exception and the others PeerFailure. For steps
// that may fail on some ranks only (a set-up that allocates, rank 0 creating the output
// file), so that no rank is left waiting in a collective that the failed one never calls.
template <class F>
void on_all_ranks(Communicator& comm, F&& f) {
    std::exception_ptr err;
    try {
        f();
    } catch (...) {
        err = std::current_exception();
    }
    const bool all_ok = comm.all(!err);
    if (err) std::rethrow_exception(err);
    if (!all_ok) throw PeerFailure();
}

// Items [0, n) split among the ranks in rank order: each rank computes its own slice
// [begin, end) with slice(begin, end), a vector of end - begin values (under
// on_all_ranks), and every rank gets all n, in item order.
template <class T, class F>
std::vector<T> gather_slices(Communicator& comm, std::uint64_t n, F&& slice) {
    const int ranks = comm.size();
    auto first = [&](int r) { return n * static_cast<std::uint64_t>(r) / static_cast<std::uint64_t>(ranks); };
    std::vector<T> mine;
    on_all_ranks(comm, [&] { mine = slice(first(comm.rank()), first(comm.rank() + 1)); });
    std::vector<std::size_t> counts(ranks);
    for (int r = 0; r < ranks; ++r) counts[r] = first(r + 1) - first(r);
    return comm.all_gather_v(mine, counts);
}

}  // namespace arbolito
