#pragma once

#include "core/domain/evaluation.h"
#include "core/domain/precision.h"

#include <optional>
#include <string>
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
 * reference's, above 8 times that of eager with TF32 under `tf32` (the audit's policyReference), and above what
 * the policy's own arithmetic explains: 64 fp32 units in the last place under `fp32`, 32 TF32 units under
 * `tf32`). Nothing under `kernelbench`, whose tolerance admits lower precision.
 */
std::optional<Flag> reducedPrecisionFlag(const PrecisionAudit &audit, Precision precision);

/// How far outputs are from the float64 answer: elements beyond the tolerance, and the largest error.
struct ExactMiss
{
    std::int64_t mismatches = 0;
    double maxAbsError = 0;
};

/**
 * Where a candidate misses the fp32 reference on a trial, the float64 answer decides. Ill-conditioned ops have
 * trials on which no two fp32 implementations agree within the tolerance (attention over inputs of seven decades:
 * the scores' rounding flips which key a softmax picks), eager's included; under `tf32`, eager's own TF32 products
 * miss the fp32 reference on wide inputs. The candidate passes when it is within the tolerance of the float64
 * answer, or misses it no more than eager does under the policy (the fp32 reference, or eager with TF32): at most
 * twice as many elements, with at most twice the largest error.
 */
bool passesOnExactAnswer(const ExactMiss &candidate, const ExactMiss &eager);
/// "against the float64 answer, this output misses 26 elements (largest error 5.86) and the fp32 reference ..."
std::string describeExactMisses(const ExactMiss &candidate, const ExactMiss &eager, const std::string &eagerName);

} // namespace kx
