#include "core/gpu/runtimer.h"

#include "core/gpu/cudaerror.h"

#include <algorithm>
#include <chrono>

namespace kx {

RunTimer::RunTimer(std::int64_t l2Bytes)
    : m_flush(std::max<std::int64_t>(2 * l2Bytes, std::int64_t(8) << 20))
{
    checkCuda(cudaEventCreate(&m_start), "creating a timing event");
    checkCuda(cudaEventCreate(&m_stop), "creating a timing event");
}

RunTimer::~RunTimer()
{
    if (m_start)
        cudaEventDestroy(m_start);
    if (m_stop)
        cudaEventDestroy(m_stop);
}

void RunTimer::flushL2()
{
    // A different byte each time, so no hardware shortcut can skip the writes.
    checkCuda(cudaMemsetAsync(m_flush.data(), int(++m_round & 0xFF), std::size_t(m_flush.bytes())), "flushing L2");
    checkCuda(cudaCtxResetPersistingL2Cache(), "resetting persisting L2 lines");
    checkCuda(cudaDeviceSynchronize(), "flushing L2");
}

TimedRun RunTimer::time(const std::function<void()> &work)
{
    flushL2();
    const auto wallStart = std::chrono::steady_clock::now();
    checkCuda(cudaEventRecord(m_start), "recording the start event");
    work();
    checkCuda(cudaEventRecord(m_stop), "recording the stop event");
    checkCuda(cudaDeviceSynchronize(), "waiting for the timed run");
    const auto wallStop = std::chrono::steady_clock::now();
    float ms = 0;
    checkCuda(cudaEventElapsedTime(&ms, m_start, m_stop), "reading the timing events");
    return TimedRun{double(ms), std::chrono::duration<double, std::milli>(wallStop - wallStart).count()};
}

} // namespace kx
