#pragma once

#include "core/gpu/tensorview.h"
#include "core/plan/launchplan.h"
#include "core/util/expected.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kx {

/// Result of comparing an output against the reference, element by element.
struct Comparison
{
    std::int64_t elements = 0;
    std::int64_t mismatches = 0; ///< Outside atol + rtol * |expected|, or non-finite where expected is not.
    double maxAbsError = 0;      ///< Over elements where both are finite.
    double maxRelError = 0;
    std::int64_t firstMismatch = -1;
    double actualAtFirst = 0;
    double expectedAtFirst = 0;
};

/**
 * Tensor work the evaluator hands to LibTorch: random inputs, tolerance comparisons, bit-exact
 * comparisons and library steps. Views may live on the GPU or, for tests, on the host. Every function
 * reports an unavailable LibTorch (or one without CUDA, for device views) as an Error.
 */
class TensorOps
{
public:
    static bool haveTorch();           ///< Built with LibTorch.
    static bool haveCuda();            ///< LibTorch can run on the GPU here.
    static std::string torchVersion(); ///< Empty without LibTorch.

    /// Fills a floating-point, integer or bool tensor (0s and 1s) from a seeded generator (same seed, same values);
    /// floating-point values are then multiplied by scale (used to bring inputs into the range where the reference
    /// is finite). An integer tensor with a value range (its view's) gets values in it (class indices), else
    /// values in [-1000, 1000).
    static Status fillRandom(const TensorView &tensor, std::uint64_t seed, Distribution distribution,
                             double scale = 1.0);

    /// Whether every element is finite (always true for integer tensors).
    static Expected<bool> allFinite(const TensorView &tensor);

    /// A 64-bit digest of the tensor's bytes: equal bytes, equal fingerprints. Lets a run be compared bit for bit
    /// with an earlier one without keeping the earlier outputs in device memory.
    static Expected<std::uint64_t> fingerprint(const TensorView &tensor);

    /// XORs the tensor's bytes with a keystream drawn from key: applied twice, it restores them. What the harness
    /// keeps in device memory this way cannot be recognized, or used, by a kernel that does not know the key.
    static Status applyKeystream(const TensorView &tensor, std::uint64_t key);

    /// At most maxSamples elements at an even stride (the first included), as doubles on the host.
    static Expected<std::vector<double>> sample(const TensorView &tensor, std::int64_t maxSamples);

    /// Elements compared or filled at once: 64 Mi floats keep each temporary at 256 MiB.
    static constexpr std::int64_t kSliceElements = std::int64_t(1) << 26;

    /// Elementwise check of actual against expected. Where expected is NaN or infinite, actual must match it.
    /// Equal dtypes, or a float64 expected (an exact answer) for floating-point actual, compared in double.
    /// Works slice by slice, so that outputs of several GiB need little memory besides themselves.
    static Expected<Comparison> compare(const TensorView &actual, const TensorView &expected, double atol, double rtol,
                                        std::int64_t sliceElements = kSliceElements);

    /// The root mean square of a floating-point tensor's finite elements (0 for integer tensors and for none
    /// finite), summed in double slice by slice.
    static Expected<double> rootMeanSquare(const TensorView &tensor, std::int64_t sliceElements = kSliceElements);

    /// True when both views hold the same bytes (NaN payloads included).
    static Expected<bool> bitEqual(const TensorView &a, const TensorView &b);

    /// Whether cuBLAS and cuDNN may use TF32 in what LibTorch runs from now on (library steps, eager timing).
    /// References that candidates are checked against always compute in full fp32 (see Fp32Scope).
    static void setTf32Allowed(bool allowed);
    static bool tf32Allowed();

    /// Gives the GPU memory LibTorch keeps cached back to the driver, so that the next op's buffers fit.
    static void releaseCachedMemory();

    /**
     * Runs one ATen op of a launch plan: every argument but the last Output is passed positionally
     * (tensors, ints, floats; the op's remaining arguments take their defaults), and the op's first result
     * is copied into the last Output argument. With cudnnBenchmark, cuDNN times its algorithms for the call's
     * shapes (once, then cached) and takes the fastest; the setting is restored after the call. With channelsLast
     * (convolutions only, an Error for other ops), tensor arguments of rank 4 or 5 are passed as channels-last
     * copies; the result is copied into the destination's own layout all the same.
     */
    static Status runLibraryStep(const std::string &atenOp, const std::vector<ResolvedArg> &args,
                                 const std::vector<TensorView> &tensorArgs, bool cudnnBenchmark = false,
                                 bool channelsLast = false);
    /// Whether cuDNN picks algorithms by timing them now: off, as in eager PyTorch, outside a step that asks.
    static bool cudnnBenchmark();
};

/// Sets TensorOps' TF32 switch for a scope and restores the previous setting.
class Tf32Scope
{
public:
    explicit Tf32Scope(bool allowed)
        : m_previous(TensorOps::tf32Allowed())
    {
        TensorOps::setTf32Allowed(allowed);
    }
    ~Tf32Scope() { TensorOps::setTf32Allowed(m_previous); }
    Tf32Scope(const Tf32Scope &) = delete;
    Tf32Scope &operator=(const Tf32Scope &) = delete;

private:
    bool m_previous;
};

} // namespace kx
