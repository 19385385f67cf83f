#pragma once
// A fixed sequence of launches recorded once into a CUDA graph and replayed: one launch
// call per replay instead of one per kernel, which is what many short launches per step
// cost (gpu-branch's level sweeps). The capture runs on a private stream (the legacy
// default stream cannot be captured); the replay goes on the caller's.
#include <array>
#include <utility>

#include <cuda_runtime.h>

#include "core/gpu/cuda_check.hpp"

namespace arbolito::gpu {

class GraphReplay {
public:
    // The arguments the launches bake in: a different key records the sequence anew.
    using Key = std::array<const void*, 4>;

    GraphReplay() = default;
    GraphReplay(GraphReplay&& o) noexcept
        : exec_(std::exchange(o.exec_, nullptr)), capture_(std::exchange(o.capture_, nullptr)), key_(o.key_) {}
    GraphReplay& operator=(GraphReplay&& o) noexcept {
        if (this != &o) {
            release();
            exec_ = std::exchange(o.exec_, nullptr), capture_ = std::exchange(o.capture_, nullptr), key_ = o.key_;
        }
        return *this;
    }
    GraphReplay(const GraphReplay&) = delete;
    GraphReplay& operator=(const GraphReplay&) = delete;
    ~GraphReplay() { release(); }

    // Launches on `stream` what enqueue(s) enqueues on a stream s, recorded on the first
    // call and whenever `key` changes. (A template, not std::function: a call per step
    // allocates nothing.)
    template <class Enqueue>
    void launch(const Key& key, cudaStream_t stream, const Enqueue& enqueue) {
        if (!exec_ || key != key_) {
            if (!capture_) CUDA_CHECK(cudaStreamCreateWithFlags(&capture_, cudaStreamNonBlocking));
            if (exec_) CUDA_CHECK(cudaGraphExecDestroy(std::exchange(exec_, nullptr)));
            cudaGraph_t graph = nullptr;
            CUDA_CHECK(cudaStreamBeginCapture(capture_, cudaStreamCaptureModeThreadLocal));
            try {
                enqueue(capture_);
            } catch (...) {
                cudaStreamEndCapture(capture_, &graph);  // leave the stream usable; the first error stands
                if (graph) cudaGraphDestroy(graph);
                throw;
            }
            CUDA_CHECK(cudaStreamEndCapture(capture_, &graph));
            const cudaError_t e = cudaGraphInstantiate(&exec_, graph, 0);
            CUDA_CHECK(cudaGraphDestroy(graph));
            CUDA_CHECK(e);
            key_ = key;
        }
        CUDA_CHECK(cudaGraphLaunch(exec_, stream));
    }

private:
    void release() noexcept {
        if (exec_) cudaGraphExecDestroy(exec_);
        if (capture_) cudaStreamDestroy(capture_);
        exec_ = nullptr, capture_ = nullptr;
    }
    cudaGraphExec_t exec_ = nullptr;
    cudaStream_t capture_ = nullptr;
    Key key_{};
};

}  // namespace arbolito::gpu
