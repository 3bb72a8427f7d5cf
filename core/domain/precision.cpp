#include "core/domain/precision.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace kx {

const char *toString(Precision precision)
{
    switch (precision) {
    case Precision::Fp32: return "fp32";
    case Precision::Tf32: return "tf32";
    case Precision::KernelBench: return "kernelbench";
    }
    return "fp32";
}

Precision precisionFromString(const std::string &text)
{
    for (const auto precision : {Precision::Fp32, Precision::Tf32, Precision::KernelBench})
        if (text == toString(precision))
            return precision;
    throw std::invalid_argument("unknown precision policy '" + text + "' (choose " + precisionChoices() + ")");
}

const char *precisionChoices()
{
    return "fp32, tf32 or kernelbench";
}

bool allowsTf32(Precision precision)
{
    return precision != Precision::Fp32;
}

Tolerance toleranceFor(const OpPolicy &policy, Precision precision, double reductionLength)
{
    Tolerance tolerance{policy.atol, policy.rtol};
    switch (precision) {
    case Precision::Fp32: break;
    case Precision::Tf32:
        if (reductionLength > 1) {
            tolerance.atol = std::max(tolerance.atol, 16 * kTf32UnitRoundoff * std::sqrt(reductionLength));
            tolerance.rtol = std::max(tolerance.rtol, 16 * kTf32UnitRoundoff);
        }
        break;
    case Precision::KernelBench:
        // KernelBench's check: torch.allclose(output, reference, atol=1e-02, rtol=1e-02).
        tolerance = {1e-2, 1e-2};
        break;
    }
    return tolerance;
}

} // namespace kx
