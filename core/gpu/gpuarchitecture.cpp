#include "core/gpu/gpuarchitecture.h"

#include <cstdio>

namespace kx {

int fp32LanesPerSm(int major, int minor)
{
    if (major == 6)
        return minor == 0 ? 64 : 128;
    if (major == 7 || (major == 8 && minor == 0))
        return 64;
    return 128;
}

double peakFp32Tflops(int major, int minor, int smCount, int smClockMHz)
{
    return double(smCount) * smClockMHz * 1e6 * fp32LanesPerSm(major, minor) * 2 / 1e12;
}

double tf32OverFp32(int major, int minor)
{
    if (major < 8)
        return 1;
    if (major == 8)
        return minor == 0 ? 8 : 2;
    if (major == 9)
        return 8;
    return 16;
}

double peakTflopsFor(const GpuInfo &gpu, bool tf32Allowed)
{
    if (!tf32Allowed)
        return gpu.peakTflops;
    int major = 0, minor = 0;
    if (std::sscanf(gpu.computeCapability.c_str(), "%d.%d", &major, &minor) != 2)
        return gpu.peakTflops * tf32OverFp32(99, 0); // unknown chip: the largest ratio keeps the floor low
    return gpu.peakTflops * tf32OverFp32(major, minor);
}

} // namespace kx
