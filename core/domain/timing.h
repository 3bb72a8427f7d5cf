#pragma once

#include <vector>

namespace kx {

struct TimingSummary
{
    double medianMs = 0;
    double iqrMs = 0;
    double minMs = 0;
    double wallMedianMs = 0; ///< Host wall-clock cross-check per run.
    int runs = 0;

    bool operator==(const TimingSummary &) const = default;
};

/// Median, interquartile range and minimum of samples (empty input gives zeros).
TimingSummary summarize(std::vector<double> samples);

} // namespace kx
