#include "ui/plots/boxstats.h"

#include <algorithm>
#include <cmath>

namespace kx::ui {

namespace {

/// The q-quantile of sorted values, interpolated linearly between neighbours.
double quantile(const std::vector<double> &sorted, double q)
{
    const double position = q * double(sorted.size() - 1);
    const auto below = std::size_t(std::floor(position));
    const std::size_t above = std::min(below + 1, sorted.size() - 1);
    return sorted[below] + (sorted[above] - sorted[below]) * (position - double(below));
}

} // namespace

BoxStats boxStats(std::vector<double> samples)
{
    BoxStats stats;
    if (samples.empty())
        return stats;
    std::sort(samples.begin(), samples.end());
    stats.lowerQuartile = quantile(samples, 0.25);
    stats.median = quantile(samples, 0.5);
    stats.upperQuartile = quantile(samples, 0.75);
    const double reach = 1.5 * (stats.upperQuartile - stats.lowerQuartile);
    stats.minimum = stats.upperQuartile;
    stats.maximum = stats.lowerQuartile;
    for (double sample : samples) {
        if (sample < stats.lowerQuartile - reach || sample > stats.upperQuartile + reach) {
            stats.outliers << sample;
        } else {
            stats.minimum = std::min(stats.minimum, sample);
            stats.maximum = std::max(stats.maximum, sample);
        }
    }
    return stats;
}

} // namespace kx::ui
