#pragma once

// Shared pieces of the row templates: parameters, checks, generated reduction helpers, row mapping.
#include "core/codegen/kerneltemplate.h"

#include <string>
#include <vector>

namespace kx::rows {

/// mapping (warp or block per row), block size, vector width, loop unrolling, reduction strategy.
std::vector<ParamDef> commonParameters();
Params commonDefaults();
/// Checks the common parameters and that cols allows the vector width in every shape set.
std::string checkCommon(const Op &op, const OpRecipe &recipe, const Params &params,
                        const std::vector<ParamDef> &definitions);

struct RowLayout
{
    bool warpPerRow = false;
    int block = 256;
    int vec = 1;
    int unroll = 1; ///< Loop iterations unrolled: loads in flight per thread.
    bool sharedTree = false;
};
RowLayout layoutOf(const Params &params);

/// CUDA helpers: warp and block reductions for float sums and maxima (every thread gets the result).
std::string reductionHelpers(const RowLayout &layout);
/// Declares `row`, `lane`-style indices and returns early past the last row; defines `in` and `cols`.
std::string rowPrologue(const RowLayout &layout, const std::string &input);
/// Loop over the row's elements: body sees `float v` (and the element index `c`).
std::string forEachElement(const RowLayout &layout, const std::string &pointer, const std::string &body,
                           const std::string &indent = "    ");
/// Grid expression for R rows.
std::string gridExpression(const RowLayout &layout, const std::string &rows);
/// Call of the row-wide reduction ("Sum" or "Max") of a float in the generated code.
std::string reduceCall(const RowLayout &layout, const std::string &kind, const std::string &value);
/// One element `v` of an online logsumexp: the running maximum `m` and the sum `s` rescaled when it grows. A -inf
/// element adds nothing (exp(-inf - -inf) would be NaN on a row that starts with -inf); NaN still propagates.
std::string onlineLogSumExpStep(const std::string &exp);
/// The tensors of a LayerNorm or RMSNorm op: x, and its weight (and bias for LayerNorm) where it has an affine
/// transform (LayerNorm of x alone is InstanceNorm); empty names where it has none.
struct NormTensors
{
    std::string input, weight, bias, output;
    bool affine = false;
};
NormTensors normTensors(const Op &op, bool layerNorm);
/// Why the op's inputs do not fit its layernorm or rmsnorm recipe (empty when they do).
std::string checkNormTensors(const Op &op, const OpRecipe &recipe);
/// The dynamic shared memory the block reductions need, as a plan expression.
std::string sharedBytes(const RowLayout &layout);

} // namespace kx::rows
