#include "core/gpu/precisionaudit.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace kx {
namespace {

constexpr double kFp32UnitRoundoff = 1.0 / 16777216.0; // 2^-24
constexpr double kRatioOverFp32 = 8;

double rootMeanSquare(const std::vector<std::vector<double>> &values)
{
    double sum = 0;
    std::int64_t count = 0;
    for (const auto &output : values)
        for (const double value : output)
            if (std::isfinite(value)) {
                sum += value * value;
                ++count;
            }
    return count > 0 ? std::sqrt(sum / double(count)) : 0.0;
}

// The q-quantile (0..1) of values, which it reorders.
double quantile(std::vector<double> &values, double q)
{
    if (values.empty())
        return 0;
    const auto index = std::size_t(std::min<double>(double(values.size() - 1), std::floor(q * double(values.size()))));
    std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(index), values.end());
    return values[index];
}

} // namespace

ErrorProfile measureErrors(const std::vector<std::vector<double>> &actual,
                           const std::vector<std::vector<double>> &exact)
{
    // Near-zero outputs count by their absolute error, relative to the outputs' size.
    const double floor = std::max(1e-3 * rootMeanSquare(exact), 1e-30);
    std::vector<double> errors;
    for (std::size_t i = 0; i < std::min(actual.size(), exact.size()); ++i) {
        const auto &a = actual[i];
        const auto &e = exact[i];
        for (std::size_t k = 0; k < std::min(a.size(), e.size()); ++k) {
            if (!std::isfinite(a[k]) || !std::isfinite(e[k]))
                continue;
            errors.push_back(std::abs(a[k] - e[k]) / std::max(std::abs(e[k]), floor));
        }
    }
    ErrorProfile profile;
    profile.samples = std::int64_t(errors.size());
    if (errors.empty())
        return profile;
    profile.maxRelError = *std::max_element(errors.begin(), errors.end());
    profile.medianRelError = quantile(errors, 0.5);
    profile.p99RelError = quantile(errors, 0.99);
    return profile;
}

std::optional<Flag> reducedPrecisionFlag(const PrecisionAudit &audit, Precision precision)
{
    if (!audit.unavailable.empty() || audit.candidate.samples == 0)
        return std::nullopt;
    double arithmetic = 0;
    switch (precision) {
    case Precision::Fp32: arithmetic = 64 * kFp32UnitRoundoff; break;
    case Precision::Tf32: arithmetic = 32 * kTf32UnitRoundoff; break;
    case Precision::KernelBench: return std::nullopt;
    }
    // Under `tf32` eager's own TF32 products may exceed the arithmetic bound (a norm after a convolution
    // magnifies the relative errors of outputs near zero): the candidate is held to eager as the policy runs it.
    const double policyEager = allowsTf32(precision) ? audit.policyReference.p99RelError : 0.0;
    const double limit =
        std::max({kRatioOverFp32 * audit.fp32Reference.p99RelError, kRatioOverFp32 * policyEager, arithmetic});
    if (audit.candidate.p99RelError <= limit)
        return std::nullopt;
    const nlohmann::json evidence{
        {"precision", toString(precision)},
        {"candidateP99RelError", audit.candidate.p99RelError},
        {"candidateMaxRelError", audit.candidate.maxRelError},
        {"fp32ReferenceP99RelError", audit.fp32Reference.p99RelError},
        {"fp32ReferenceMaxRelError", audit.fp32Reference.maxRelError},
        {"policyReferenceP99RelError", policyEager},
        {"policyReferenceMaxRelError", allowsTf32(precision) ? audit.policyReference.maxRelError : 0.0},
        {"limit", limit},
        {"samples", audit.candidate.samples},
    };
    return Flag{"reduced-precision", evidence.dump()};
}

bool passesOnExactAnswer(const ExactMiss &candidate, const ExactMiss &eager)
{
    constexpr double kMissRatio = 2;
    if (candidate.mismatches == 0)
        return true;
    return eager.mismatches > 0 && double(candidate.mismatches) <= kMissRatio * double(eager.mismatches)
           && candidate.maxAbsError <= kMissRatio * eager.maxAbsError;
}

std::string describeExactMisses(const ExactMiss &candidate, const ExactMiss &eager, const std::string &eagerName)
{
    const auto misses = [](const ExactMiss &miss) {
        std::ostringstream text;
        text.precision(4);
        text << miss.mismatches << " elements (largest error " << miss.maxAbsError << ")";
        return text.str();
    };
    return "against the float64 answer, this output misses " + misses(candidate) + " and " + eagerName + " "
           + misses(eager);
}

} // namespace kx
