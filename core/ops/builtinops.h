#pragma once

#include "core/domain/op.h"

#include <string>
#include <vector>

namespace kx {

/**
 * The ops Kernel Explorer knows without importing anything (the built-in catalog): activations, fused
 * elementwise chains, reductions, softmax, norms, matrix products with fused epilogues, transpose and conv2d.
 * Each has at least two shape sets (the first is the default, used for timing), minimal DRAM bytes and
 * FLOP expressions for the roofline floor, and tolerances suited to its numerics. The worker has a
 * LibTorch reference for each, keyed by the same name.
 */
const std::vector<Op> &builtInOps();

/// A shape set of the catalog's group_norm (4 groups) for x [n, c, h, w]: its rows R = n * 4, the row length
/// D = c / 4 * h * w and the channel size S = h * w bound with it.
ShapeSet groupNormShapes(long long n, long long c, long long h, long long w);

/// A shape set of the catalog's instance_norm for x [n, c, h, w]: its rows R = n * c and the row length D = h * w.
ShapeSet instanceNormShapes(long long n, long long c, long long h, long long w);

/// The built-in op with this name, or nullptr.
const Op *findBuiltInOp(const std::string &name);

} // namespace kx
