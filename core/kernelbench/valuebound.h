#pragma once

#include "core/kernelbench/opgraph.h"

#include <cstdint>
#include <vector>

namespace kx {

/**
 * How large the elements of a translated tensor are and how far rounding may have moved them from the
 * reference's, for the unit-size inputs of the trials: a pipeline's tolerance follows every summation on the way
 * to its output, not only the last. A sum of n terms of size s with mixed signs is about s * sqrt(n) in size, and
 * summing in another order than the reference moves it by summationAtol(n, s) (atencalls.h); errors the terms
 * already carry add up like a random walk, to sqrt(n) times theirs. E.g. a GEMM with K = 8192 gives elements of
 * size 90; summing 8192 of them in another order may move the sum by 0.18 where the sum itself is about 8192.
 */
struct ValueBound
{
    double size = 1;  ///< The typical size of an element.
    double error = 0; ///< How far an element may be from the reference's.

    /// A product summing @p terms products of this with unit-size weights (a GEMM row, a convolution window);
    /// @p reordered: computed in another order than the reference (generated), not by the same library call.
    ValueBound product(std::int64_t terms, bool reordered) const;
    /// The sum of @p terms elements, in another order than the reference.
    ValueBound sum(std::int64_t terms) const;
    /// Their mean: the sum's error divided by the count.
    ValueBound mean(std::int64_t terms) const;
    /// A normalisation (softmax, a norm): unit size, the same relative error.
    ValueBound normalized() const;

    /// What an elementwise call of these values gives (the largest of each).
    static ValueBound widest(const std::vector<ValueBound> &bounds);
    /// What a library call (LibTorch, as the reference calls it) gives from tensor arguments bounded by @p
    /// arguments: a product's results are larger, a normalisation's of unit size, others' like the arguments.
    static ValueBound ofLibraryCall(const GraphNode &node, const ValueBound &arguments);
};

/// How many products each result of a product call sums (K of a GEMM, input channels x taps of a convolution);
/// 0 for calls that are no products.
std::int64_t productTerms(const GraphNode &node);

} // namespace kx
