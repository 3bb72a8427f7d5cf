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
 * The tolerance outputs are checked with under a policy. For Tf32, rounding an operand to TF32 changes it by up to
 * u of its size (u = kTf32UnitRoundoff), so each product a_k * b_k is off by up to 2u of its size. Over a
 * reduction of length K with terms of mixed signs those errors add up like a random walk: the error of a sum has
 * a standard deviation of about 0.8u times the root of the sum of the squared terms (the outputs' RMS, sqrt(K) for
 * unit-scale inputs), and about 1.8u where hardware truncates to TF32 instead of rounding. Outputs are compared with
 * the fp32 reference, and the largest error of 10^9 outputs lies 6.4 standard deviations out: 12u. With room for
 * heavy-tailed inputs:
 *     atol = max(op atol, 16u * sqrt(K)),  rtol = max(op rtol, 16u)      (K > 1; K <= 1 keeps the op's own)
 * e.g. K = 4096 gives atol 0.5 and rtol 0.0078, where the sums themselves are about 64 in size. (A 3-sigma
 * bound, 6u, failed honest TF32 products at 6 of 16.7 million outputs.)
 */
Tolerance toleranceFor(const OpPolicy &policy, Precision precision, double reductionLength);

} // namespace kx
