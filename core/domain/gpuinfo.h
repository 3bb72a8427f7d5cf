#pragma once

#include <cstdint>
#include <string>

namespace kx {

/// The GPU an evaluation ran on and its software environment (reproducibility).
struct GpuInfo
{
    std::string name; ///< e.g. "NVIDIA H100 80GB HBM3".
    std::string uuid;
    std::string host;              ///< The machine the worker ran on (hostname; empty in older archives).
    std::string computeCapability; ///< e.g. "9.0".
    int smCount = 0;
    std::int64_t memoryBytes = 0;
    std::int64_t l2Bytes = 0;
    int smClockMHz = 0;
    int memoryClockMHz = 0;
    std::string driverVersion;
    std::string cudaRuntimeVersion;
    std::string nvrtcVersion;
    std::string torchVersion;
    double measuredBandwidthGBs = 0; ///< Peak DRAM bandwidth from the worker's copy benchmark.
    double peakTflops = 0;           ///< fp32 peak, from SM count and clock (0 when unknown).

    /// Stable key of the hardware and software identity (name, capability, driver, runtime versions, the card's
    /// UUID where known). The host is not part of it: a UUID names one card wherever it is.
    std::string fingerprint() const;

    bool operator==(const GpuInfo &) const = default;
};

} // namespace kx
