#pragma once

#include "core/domain/evaluation.h"
#include "core/plan/launchplan.h"
#include "core/util/expected.h"

#include <cstdint>

namespace kx {

/// One CUDA device made current in this process: its identity, limits and measured speed.
class GpuDevice
{
public:
    /// Makes the device current and queries it. The Error says why no GPU can be used (no driver ...).
    static Expected<GpuDevice> open(int device);

    int index() const { return m_index; }
    const GpuInfo &info() const { return m_info; }
    const DeviceLimits &limits() const { return m_limits; }

    /// Best of several device-to-device copies (bytes read + written per second), in GB/s. Throws CudaFailure.
    double measureCopyBandwidthGBs(std::int64_t bytes = std::int64_t(256) << 20, int repeats = 5) const;
    void setMeasuredBandwidth(double gbs) { m_info.measuredBandwidthGBs = gbs; }

private:
    int m_index = 0;
    GpuInfo m_info;
    DeviceLimits m_limits;
};

} // namespace kx
