#pragma once

#include <algorithm>
#include <cstdint>

namespace kx {

/**
 * How many timing input sets fit the GPU's free memory. Each set keeps a sealed reference and a checked copy of
 * the outputs (two output copies); the reference's own work (LibTorch's intermediates) needs room too, reckoned
 * as two copies of the inputs and outputs. At least one set, at most the requested number: an op whose tensors
 * take most of the GPU (KernelBench's RMSNorm at 7.5 GB a tensor) is still timed, on fewer sets. An unknown free
 * size (negative) keeps the request.
 */
inline int timingSetsThatFit(int requested, std::int64_t freeBytes, std::int64_t inputBytes, std::int64_t outputBytes)
{
    requested = std::max(1, requested);
    if (freeBytes < 0 || outputBytes <= 0)
        return requested;
    const std::int64_t perSet = 2 * outputBytes;
    const std::int64_t headroom = 2 * (inputBytes + outputBytes);
    const std::int64_t fit = (freeBytes - headroom) / perSet;
    return int(std::clamp<std::int64_t>(fit, 1, requested));
}

} // namespace kx
