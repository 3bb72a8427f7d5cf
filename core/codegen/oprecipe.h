#pragma once

#include "core/domain/op.h"
#include "core/util/expected.h"

#include <string>
#include <vector>

namespace kx {

/**
 * What an op computes, in the terms code generation needs (stored as JSON in Op::recipe).
 * Families and their fields:
 * - "elementwise": out = expression over the inputs' elements (all inputs and the output have the same
 *   number of elements). expression is CUDA C over the input names, e.g. "fmaxf(x, 0.0f)".
 * - "reduce": out[r] = reduction over the last dimension of input [rows, cols]; reduction is "sum", "mean",
 *   "max", "min", "prod", "argmax" or "argmin" (the arg reductions write int64, the first index of the extreme).
 *   With inner other than "1", the input is [rows, cols, inner] and out[r, i] reduces its middle dimension.
 * - "softmax": reduction "softmax" or "logsoftmax" over the last dimension of [rows, cols].
 * - "normalize": out[r, :] = x[r, :] / statistic over the last dimension of [rows, cols]: the statistic is
 *   expression (CUDA C over `acc`; empty: acc) of acc, the reduction ("sum", "mean" or "max") over the row of
 *   prologue (CUDA C over `v`, an element; empty: v). L2 normalisation: prologue "v * v", sum, "sqrtf(acc)".
 * - "norm": reduction "layernorm" (inputs x, weight, bias) or "rmsnorm" (inputs x, weight) over the last
 *   dimension, with eps. With inner other than "1", x is [rows, cols, inner] and the norm runs over its middle
 *   dimension (rmsnorm only, the weight, if any, a [cols] input).
 * - "gemm": out[m, n] = epilogue(sum_k a[m, k] * b[k, n]) with b given as [n, k] when transposeB (nn.Linear).
 *   bias names a [n] input added before the epilogue ("" for none); epilogue is CUDA C over `acc` (the
 *   biased sum), `m`, `n` and the names in epilogueInputs (each an [m, n] input read at (m, n)).
 * - "transpose": out[c, r] = in[r, c].
 * - "conv-epilogue": a library convolution (aten::conv2d of x and weight) followed by a fused epilogue over
 *   `acc`, the channel `c` and bias (a [C_out] input), e.g. "fmaxf(acc + bias[c], 0.0f)".
 * - "pipeline": stages (JSON, see core/codegen/pipeline.h): library calls, fused elementwise chains and
 *   reductions in order, through intermediates; for ops no single template covers.
 * - "scan": out[r, j, i] = epilogue(the running reduction, "sum" or "prod", of prologue(inputs) along the middle
 *   dimension of [rows, cols, inner], up to j). prologue is CUDA C over the input names (each read at the same
 *   position; empty: the first input), expression the epilogue over `acc` and the input names (empty: acc).
 *   exclusive scans stop before j (out[r, 0, i] is the identity); reverse scans run from the end of the dimension.
 * Symbols name the op's shape symbols: rows/cols, m/n/k.
 */
struct OpRecipe
{
    std::string family;
    std::string expression;
    std::string reduction;
    std::string rows = "R";
    std::string cols = "C";
    std::string inner = "1"; ///< norm, reduce: elements after the normalised or reduced dimension.
    double eps = 1e-5;
    std::string m = "M", n = "N", k = "K";
    bool transposeB = false;
    std::string bias;
    std::vector<std::string> epilogueInputs;
    std::string stages; ///< pipeline: the stages as JSON text.
    std::string prologue;   ///< scan: what is scanned at a position; normalize: what is reduced.
    bool exclusive = false; ///< scan: without the element itself.
    bool reverse = false;   ///< scan: from the last position to the first.

    bool operator==(const OpRecipe &) const = default;
};

std::string toJson(const OpRecipe &recipe);
/// Parses an op's recipe; an Error names what is missing or unknown.
Expected<OpRecipe> recipeOf(const Op &op);

/// The library call that computes a gemm recipe's product (what an op's policy must allow for the gemm-library
/// template): aten::linear for a transposed B (nn.Linear), else aten::mm.
std::string gemmLibraryOp(const OpRecipe &recipe);

} // namespace kx
