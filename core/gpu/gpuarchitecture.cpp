#include "core/gpu/gpuarchitecture.h"

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

} // namespace kx
