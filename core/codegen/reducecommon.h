#pragma once

// What the reduce templates share: the reductions a "reduce" recipe names and the CUDA that combines values the
// way PyTorch does (NaN wins for max, min and the arg reductions; ties go to the first index).
#include "core/codegen/rowcommon.h"

#include <string>

namespace kx::reduction {

/// sum, mean, max, min, prod, argmax or argmin.
bool isKnown(const std::string &reduction);
/// argmax and argmin: they carry an index beside the value and write int64.
bool isIndexed(const std::string &reduction);
/// "int64" for the indexed reductions, "float32" for the others.
std::string outputType(const std::string &reduction);

/// A value reduction's step as a CUDA expression of the accumulator and the next value: a sum, a product, or a max
/// or min that lets NaN win.
std::string combineExpression(const std::string &reduction, const std::string &acc = "acc", const std::string &v = "v");

/**
 * CUDA helpers for one reduction, to paste before the kernels:
 * - every reduction: `float reduceIdentity()` (the start value: 0, 1, -inf or +inf);
 * - value reductions: `float combine(float acc, float v)` and `float warpCombine(float v)` (every lane gets the
 *   result);
 * - indexed ones: `void combineArg(float &best, long long &bestIndex, float v, long long index)` and
 *   `void warpCombineArg(float &best, long long &bestIndex)`; an empty slot is the identity with index
 *   kNoIndex (LLONG_MAX), which any real element beats or ties and then wins by its smaller index.
 */
std::string deviceHelpers(const std::string &reduction);

/// For a block a row (rows::RowLayout): `float blockCombine(float v, float *shared)`, or for the indexed reductions
/// `void blockCombineArg(float &best, long long &bestIndex, float *shared)`, every thread getting the result; by
/// warp shuffles and one value a warp in shared memory, or by a shared-memory tree (layout.sharedTree).
std::string blockHelpers(const rows::RowLayout &layout, bool indexed);
/// The dynamic shared memory blockHelpers() need, as a plan expression ("0" for a warp a row).
std::string sharedBytes(const rows::RowLayout &layout, bool indexed);

/// The output value from the accumulator `acc` after @p count elements (the mean divides, the others keep it).
std::string finish(const std::string &reduction, const std::string &acc, const std::string &count);

} // namespace kx::reduction
