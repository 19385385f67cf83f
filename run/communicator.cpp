#include "run/communicator.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "lowered_cell/timings.hpp"

#ifdef ARBOLITO_HAVE_MPI
// MPI's C interface only: an MPI's C++ bindings (Open MPI 4's libmpi_cxx) are not linked,
// and Open MPI 5 has none.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace arbolito {

namespace {

// Ranks the launcher asked for, from the variables it sets (Open MPI, MPICH/Hydra and
// Intel MPI, PMIx, MVAPICH); 0 when the process was not started by one.
long launcher_ranks() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE"})
        if (const char* s = std::getenv(v)) return std::max(1L, std::atol(s));
    if (std::getenv("PMIX_RANK")) return 1;  // PMIx gives the rank here, the size only through its API
    return 0;
}

}  // namespace

#ifdef ARBOLITO_HAVE_MPI

namespace {

class MpiCommunicator final : public Communicator {
public:
    MpiCommunicator(int& argc, char**& argv) {
        int initialised = 0;
        MPI_Initialized(&initialised);
        if (!initialised) {
            MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided_);
            owns_ = true;
        } else {
            MPI_Query_thread(&provided_);
        }
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
        MPI_Comm_size(MPI_COMM_WORLD, &size_);
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &local_rank_);
        MPI_Comm_size(node, &local_size_);
        MPI_Comm_free(&node);
    }
    ~MpiCommunicator() override {
        if (owns_) MPI_Finalize();
    }
    int rank() const override { return rank_; }
    int size() const override { return size_; }
    int local_rank() const override { return local_rank_; }
    int local_size() const override { return local_size_; }
    bool thread_serialized() const override { return provided_ >= MPI_THREAD_SERIALIZED; }
    std::string describe() const override {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        MPI_Get_library_version(lib, &len);
        std::string name(lib, static_cast<std::size_t>(len));
        name = name.substr(0, name.find_first_of(",\n"));
        static const char* levels[] = {"single", "funneled", "serialized", "multiple"};
        const int l = provided_ == MPI_THREAD_SINGLE ? 0 : provided_ == MPI_THREAD_FUNNELED ? 1
                    : provided_ == MPI_THREAD_SERIALIZED ? 2 : 3;
        return "MPI, " + std::to_string(size_) + " ranks (" + name + ", thread level " + levels[l] + ")";
    }
    double seconds() const override {
        std::lock_guard<std::mutex> lock(mutex_);
        return seconds_;
    }

    void all_gather_bytes(const void* mine, std::size_t n, void* all) override {
        Call c(*this);
        MPI_Iallgather(mine, count(n), MPI_BYTE, all, count(n), MPI_BYTE, MPI_COMM_WORLD, &c.request);
    }
    void all_gather_bytes_v(const void* mine, const std::vector<std::size_t>& counts, void* all) override {
        std::vector<int> n, displ;
        layout(counts, n, displ);
        Call c(*this);
        MPI_Iallgatherv(mine, n[rank_], MPI_BYTE, all, n.data(), displ.data(), MPI_BYTE, MPI_COMM_WORLD, &c.request);
    }
    void gather_bytes_v(const void* mine, const std::vector<std::size_t>& counts, void* all) override {
        std::vector<int> n, displ;
        layout(counts, n, displ);
        Call c(*this);
        MPI_Igatherv(mine, n[rank_], MPI_BYTE, all, n.data(), displ.data(), MPI_BYTE, 0, MPI_COMM_WORLD, &c.request);
    }
    void sum(double* v, std::size_t n) override {
        Call c(*this);
        MPI_Iallreduce(MPI_IN_PLACE, v, count(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &c.request);
    }
    void max(double* v, std::size_t n) override {
        Call c(*this);
        MPI_Iallreduce(MPI_IN_PLACE, v, count(n), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &c.request);
    }

private:
    // One collective at a time (MPI_THREAD_SERIALIZED), started non-blocking and waited
    // for on leaving the scope, and its time. The wait polls briefly, then sleeps between
    // polls: a blocking MPI call would spin on a core that the cell update needs while
    // the exchange thread waits for the other ranks (the wait is hidden behind the
    // update; a few tens of µs of latency are not).
    struct Call {
        explicit Call(MpiCommunicator& m) : lock(m.mutex_), comm(m) {}
        ~Call() {
            int done = 0;
            for (int polls = 0; !done; ++polls) {
                MPI_Test(&request, &done, MPI_STATUS_IGNORE);
                if (!done && polls > 100) std::this_thread::sleep_for(std::chrono::microseconds(20));
            }
            comm.seconds_ += watch.lap();
        }
        std::lock_guard<std::mutex> lock;
        MpiCommunicator& comm;
        Stopwatch watch;
        MPI_Request request = MPI_REQUEST_NULL;
    };
    static int count(std::size_t n) {
        if (n > static_cast<std::size_t>(INT_MAX))
            throw std::runtime_error("MPI: a message of " + std::to_string(n) + " elements exceeds MPI's int counts");
        return static_cast<int>(n);
    }
    void layout(const std::vector<std::size_t>& counts, std::vector<int>& n, std::vector<int>& displ) const {
        if (counts.size() != static_cast<std::size_t>(size_)) throw std::logic_error("MPI: one count per rank expected");
        std::size_t at = 0;
        for (std::size_t c : counts) {
            n.push_back(count(c));
            displ.push_back(count(at));
            at += c;
        }
        count(at);
    }

    int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1, provided_ = MPI_THREAD_SINGLE;
    bool owns_ = false;
    mutable std::mutex mutex_;
    double seconds_ = 0;
};

}  // namespace

std::unique_ptr<Communicator> make_world_communicator(int& argc, char**& argv) {
    if (launcher_ranks() > 0) return std::make_unique<MpiCommunicator>(argc, argv);
    return std::make_unique<SerialCommunicator>();
}

#else

std::unique_ptr<Communicator> make_world_communicator(int& argc, char**& argv) {
    (void)argc;
    (void)argv;
    if (const long n = launcher_ranks(); n > 1)
        throw std::runtime_error("started as one of " + std::to_string(n) +
                                 " MPI ranks, but this arbolito was built without MPI (configure with -DARBOLITO_MPI=ON), "
                                 "so every rank would run the whole model: run it without mpirun");
    return std::make_unique<SerialCommunicator>();
}

#endif

}  // namespace arbolito
