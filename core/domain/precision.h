#pragma once

#include "core/domain/op.h"

#include <string>

namespace kx {

/**
 * What a candidate may round and how strictly it is checked; the baselines it is compared with run under the
 * same rules, so a speedup never comes from comparing TF32 with fp32.
 * - Fp32 (default): no TF32 anywhere (candidates, eager and Inductor alike); the op's own tolerance.
 * - Tf32: candidates may use TF32 tensor cores, and eager PyTorch and Inductor run with TF32 allowed in cuBLAS
 *   and cuDNN; the tolerance widens with the reduction length (see toleranceFor()).
 * - KernelBench: KernelBench's own check (atol = rtol = 1e-2) with TF32 allowed, to compare with published results.
 */
enum class Precision { Fp32, Tf32, KernelBench };

const char *toString(Precision precision);
Precision precisionFromString(const std::string &text); ///< Throws std::invalid_argument naming the choices.
/// "fp32, tf32, kernelbench": for help texts and error messages.
const char *precisionChoices();

/// Whether cuBLAS and cuDNN may use TF32 (in candidates' library steps and in the baselines).
bool allowsTf32(Precision precision);

struct Tolerance
{
    double atol = 0;
    double rtol = 0;

    bool operator==(const Tolerance &) const = default;
};

/// TF32 keeps 10 of fp32's 23 mantissa bits: its unit roundoff is 2^-11.
inline constexpr double kTf32UnitRoundoff = 1.0 / 2048.0;

/**
 * The tolerance outputs are checked with under a policy. For Tf32, each product of two TF32-rounded operands is
 * off by up to 2u of its size (u = kTf32UnitRoundoff); over a reduction of length K with terms of mixed signs
 * those errors add up like a random walk, to about 2u * sqrt(K) times a term's size (about 1 for the unit-scale
 * inputs of the trials). Three such standard deviations cover the largest error over millions of outputs:
 *     atol = max(op atol, 6u * sqrt(K)),  rtol = max(op rtol, 4u)        (K > 1; K <= 1 keeps the op's own)
 * e.g. K = 4096 gives atol 0.19 and rtol 0.002, where the sums themselves are about 64 in size.
 */
Tolerance toleranceFor(const OpPolicy &policy, Precision precision, double reductionLength);

} // namespace kx
