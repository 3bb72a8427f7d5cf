#pragma once

#include "core/gpu/devicebuffer.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>

namespace kx {

/// One timed run: GPU time between two events, and host wall-clock time around it up to a device sync.
struct TimedRun
{
    double eventMs = 0;
    double wallMs = 0;
};

/**
 * Times work on the default stream the same way for candidates and references: before each run (outside
 * the timed region) the L2 cache is flushed by writing twice its size and persisting lines are reset.
 */
class RunTimer
{
public:
    explicit RunTimer(std::int64_t l2Bytes); ///< Throws CudaFailure.
    ~RunTimer();
    RunTimer(const RunTimer &) = delete;
    RunTimer &operator=(const RunTimer &) = delete;

    void flushL2();
    /// Flushes L2, then runs work between two events and waits for the whole device. Throws CudaFailure.
    TimedRun time(const std::function<void()> &work);

private:
    DeviceBuffer m_flush;
    cudaEvent_t m_start = nullptr;
    cudaEvent_t m_stop = nullptr;
    unsigned m_round = 0;
};

} // namespace kx
