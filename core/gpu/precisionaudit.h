#pragma once

#include "core/domain/evaluation.h"
#include "core/domain/precision.h"

#include <optional>
#include <vector>

namespace kx {

/// Elements of each output an error profile looks at (an even stride through the output).
inline constexpr std::int64_t kAuditSamples = std::int64_t(1) << 20;

/// The error profile of actual against exact, output by output (equal sizes), pooled. Elements where either
/// value is not finite are left out.
ErrorProfile measureErrors(const std::vector<std::vector<double>> &actual,
                           const std::vector<std::vector<double>> &exact);

/**
 * The "reduced-precision" flag: a candidate within the tolerance whose typical error is far above what an fp32
 * implementation shows on the same inputs (its 99th-percentile relative error above 8 times the fp32
 * reference's, and above what the policy's own arithmetic explains: 64 fp32 units in the last place under
 * `fp32`, 32 TF32 units under `tf32`). Nothing under `kernelbench`, whose tolerance admits lower precision.
 */
std::optional<Flag> reducedPrecisionFlag(const PrecisionAudit &audit, Precision precision);

} // namespace kx
