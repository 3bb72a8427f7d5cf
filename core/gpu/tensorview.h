#pragma once

#include "core/domain/op.h"
#include "core/util/expected.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kx {

/// Element types the evaluator can allocate, fill, compare and hand to LibTorch.
enum class DType { Float32, Float16, BFloat16, Float64, Int32, Int64, Bool };

Expected<DType> dtypeFromString(const std::string &text);
const char *toString(DType dtype);
std::int64_t dtypeSize(DType dtype);
bool isFloatingPoint(DType dtype);

/**
 * How a trial's inputs are drawn. Random ones catch kernels tuned to one value range; structured ones catch
 * kernels that are right only on data that looks random (and wrong on constants, integers or sorted values).
 * Integer tensors get random integers in [-1000, 1000) unless their spec gives a value range (class indices), bool
 * tensors (masks) random 0s and 1s.
 */
enum class Distribution {
    Normal,        ///< N(0, 1)
    Uniform,       ///< U(-1, 1)
    Wide,          ///< N(0, 10), about one element in 16 scaled by a further 100 (large magnitudes)
    Constant,      ///< every element the same value (one of a few exact binary fractions, per tensor)
    IntegerValued, ///< whole numbers in [-8, 8]
    Sorted,        ///< N(0, 1), each row (the last dimension) sorted ascending
    Ramp,          ///< each row evenly spaced from 0.5 to 2 (linspace; all positive, so sums do not cancel)
    ReverseSorted, ///< N(0, 1), each row sorted descending
    Positive,      ///< |N(0, 1)|
    Negative,      ///< -|N(0, 1)|
    Mixed,         ///< N(0, 1) times 2^k, k a whole number in [-12, 12]: magnitudes over seven decades
    Special,       ///< N(0, 1) with one element in 32 replaced by +-0, +-inf, NaN, a subnormal or +-FLT_MAX
};

const char *toString(Distribution distribution);

/// The distributions the correctness trials cycle through, in order (Special is not among them: it runs in
/// a trial of its own whose differences are evidence in the report, not a failure).
const std::vector<Distribution> &trialDistributions();

/// About how large the inputs of a distribution are, relative to N(0, 1): the absolute tolerance grows with it.
double inputScale(Distribution distribution);

/**
 * The absolute tolerance of one trial. Sums of large inputs (inputScale() times the trial's scale above 1) have
 * large partial sums, and so do sums of rows that are sorted or ramps, whose neighbouring terms have one sign and
 * add up in proportion to the length instead of its square root (a product of sorted rows cancels from
 * thousands down to hundredths). Summing in another order changes the last bits of those partial sums, in the
 * reference as in a candidate: there the tolerance is rtol of the outputs' RMS. Elsewhere it is the policy's.
 */
double trialAtol(double policyAtol, double rtol, Distribution distribution, double scale, double referenceRms);

/// The values an integer input is drawn from: [low, high).
struct IntegerRange
{
    std::int64_t low = 0, high = 0;

    bool operator==(const IntegerRange &) const = default;
};

/// Non-owning view of a dense, contiguous tensor in device memory (or host memory, for tests).
struct TensorView
{
    void *data = nullptr;
    std::vector<std::int64_t> shape;
    DType dtype = DType::Float32;
    int device = 0; ///< CUDA device index; -1 for host memory (tests).
    /// What TensorOps::fillRandom draws an integer tensor from. A view of a layout carries the layout's range, so
    /// every fill of an op's inputs draws class indices where the spec asks for them, whoever fills.
    std::optional<IntegerRange> valueRange = std::nullopt;

    std::int64_t elementCount() const;
    std::int64_t byteCount() const;
};

/// A tensor spec with its shape symbols bound: concrete dimensions, dtype and size.
struct TensorLayout
{
    std::string name;
    std::vector<std::int64_t> shape;
    DType dtype = DType::Float32;
    std::optional<IntegerRange> valueRange; ///< An integer input's values, where its spec bounds them.

    std::int64_t elementCount() const;
    std::int64_t byteCount() const;
    TensorView view(void *data, int device) const;
};

/// Binds a spec's dimensions (symbols or integer literals) to sizes; rejects unknown symbols and sizes < 1. A value
/// range binds the same way and must be a non-empty [low, high) of an integer tensor.
Expected<TensorLayout> resolveLayout(const TensorSpec &spec, const ShapeSet &shapes);

/// Text form of a shape, e.g. "[4096, 1024]".
std::string shapeText(const std::vector<std::int64_t> &shape);

} // namespace kx
