#include "api/run_in_memory.hpp"

#include <stdexcept>

#include "io/sonata_sink.hpp"

namespace arbolito {

namespace {

// Keeps every frame and spike, and passes them on to `also` where there is one.
class MemorySink final : public RecordSink {
public:
    MemorySink(InMemoryRecord& r, RecordSink* also) : r_(r), also_(also) {}
    void frames(const double* rows, std::size_t n) override {
        r_.frames.insert(r_.frames.end(), rows, rows + n * r_.mapping.n_values());
        if (also_) also_->frames(rows, n);
    }
    void spikes(const std::vector<Spike>& s) override {
        r_.spikes.insert(r_.spikes.end(), s.begin(), s.end());
        if (also_) also_->spikes(s);
    }
    void epoch_done(double t) override {
        if (also_) also_->epoch_done(t);
    }

private:
    InMemoryRecord& r_;
    RecordSink* also_;
};

}  // namespace

namespace {

SimOptions one_rank(const SimOptions& o) {
    if (o.comm && o.comm->size() > 1) throw std::invalid_argument("an in-memory run runs on one rank");
    return o;
}

}  // namespace

InMemoryRun::InMemoryRun(const Model& m, const SimOptions& o) : sim_(m, one_rank(o)) {
    if (o.record_samples) mapping_ = report_mapping(sim_, m.run);
}

InMemoryRecord InMemoryRun::run(const RunHooks& hooks) {
    InMemoryRecord r;
    r.mapping = mapping_;
    r.solver = sim_.solver().text();
    r.frames.reserve(mapping_.n_frames() * mapping_.n_values());
    MemorySink sink(r, hooks.also);
    r.report = sim_.run(sink, hooks.progress, hooks.stop_requested);
    return r;
}

InMemoryRecord run_in_memory(const Model& m, const SimOptions& o, const RunHooks& hooks) {
    return InMemoryRun(m, o).run(hooks);
}

}  // namespace arbolito
