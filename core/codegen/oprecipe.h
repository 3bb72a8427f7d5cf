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
 *   number of elements). expression is CUDA C over the input names, e.g. "fmaxf(x, 0.0f)". An input may
 *   broadcast over trailing dimensions (its shape the output's last ones), or be one of rowInputs: its shape the
 *   output's leading dimensions, one value for each row of the rest (diag(a) @ b is a[i] * b[i, j]).
 * - "reduce": out[r] = reduction over the last dimension of input [rows, cols]; reduction is "sum", "mean",
 *   "max", "min", "prod", "argmax" or "argmin" (the arg reductions write int64, the first index of the extreme).
 *   With inner other than "1", the input is [rows, cols, inner] and out[r, i] reduces its middle dimension.
 * - "softmax": reduction "softmax" or "logsoftmax" over the last dimension of [rows, cols].
 * - "normalize": out[r, :] = x[r, :] / statistic over the last dimension of [rows, cols]: the statistic is
 *   expression (CUDA C over `acc`; empty: acc) of acc, the reduction ("sum", "mean" or "max") over the row of
 *   prologue (CUDA C over `v`, an element; empty: v). L2 normalisation: prologue "v * v", sum, "sqrtf(acc)".
 * - "norm": reduction "layernorm" (inputs x, weight, bias) or "rmsnorm" (inputs x, weight) over the last
 *   dimension, with eps. With inner other than "1", x is [rows, cols, inner] and the norm runs over its middle
 *   dimension (rmsnorm only, the weight, if any, a [cols] input). GroupNorm is a layernorm of rows N * groups
 *   whose weight and bias are per channel: with groups or channelSize other than "1", the element c of a row is in
 *   channel (row % groups) * (cols / channelSize) + c / channelSize (InstanceNorm: groups C, channelSize cols).
 * - "gemm": out[m, n] = epilogue(sum_k a[m, k] * b[k, n]) with b given as [n, k] when transposeB (nn.Linear)
 *   and a given as [k, m] when transposeA. bias names a [n] input added before the epilogue ("" for none);
 *   epilogue is CUDA C over `acc` (the biased sum), `m`, `n` and the names in epilogueInputs (each an input of
 *   the output's shape read at the same element). With a batch (a symbol other than "1"), a, the output and the
 *   epilogue inputs have a leading batch dimension, and b too unless it is one matrix that every batch shares.
 *   leading names a's and the output's dimensions before m, folded into the rows (a [L, M, K] is an [L * M, K]
 *   matrix). triangle "upper" or "lower" keeps the output's triangle (triu or tril with diagonal: n - m >= diagonal
 *   or n - m <= diagonal) and writes zeros elsewhere.
 * - "transpose": out[c, r] = in[r, c].
 * - "conv-epilogue": a library convolution (aten::conv2d of x and weight) followed by a fused epilogue over
 *   `acc`, the channel `c` and bias (a [C_out] input), e.g. "fmaxf(acc + bias[c], 0.0f)".
 * - "pipeline": stages (JSON, see core/codegen/pipeline.h): library calls, fused elementwise chains and
 *   reductions in order, through intermediates; for ops no single template covers.
 * - "scan": out[r, j, i] = epilogue(the running reduction, "sum" or "prod", of prologue(inputs) along the middle
 *   dimension of [rows, cols, inner], up to j). prologue is CUDA C over the input names (each read at the same
 *   position; empty: the first input), expression the epilogue over `acc` and the input names (empty: acc).
 *   exclusive scans stop before j (out[r, 0, i] is the identity); reverse scans run from the end of the dimension.
 * - "attention": out = softmax(scale * q @ k^T) @ v over the inputs q [leading..., m, k], k [leading..., n, k] and
 *   v [leading..., n, dv] (the value head dim dv is v's last dimension), out [leading..., m, dv]; leading are the
 *   batch dimensions (batch and heads) all three share. causal masks the scores above the diagonal (key n > query
 *   m) to -inf before the softmax, as scaled_dot_product_attention's is_causal does.
 * - "loss": a float32 scalar, the sum of terms divided by a count: prologue "elementwise" (a term an element,
 *   expression over the input names), "cross-entropy" or "triplet-margin" (a term a row of [rows, cols]);
 *   reduction "mean", "sum" or "batchmean" (see core/codegen/losstemplate.h).
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
    std::string groups = "1";      ///< norm: groups a sample's channels form, a row each (GroupNorm).
    std::string channelSize = "1"; ///< norm: elements of a row that share one weight and bias (a channel).
    double eps = 1e-5;
    std::string m = "M", n = "N", k = "K";
    bool transposeB = false;
    bool transposeA = false;          ///< gemm: a given as [k, m].
    std::string batch = "1";          ///< gemm: the batch dimension ("1": none).
    std::vector<std::string> leading; ///< gemm: dimensions before m, folded into the rows.
    std::string triangle;             ///< gemm: "upper" or "lower" ("" for the whole output).
    int diagonal = 0;                 ///< gemm: the triangle's diagonal, as triu and tril take it.
    std::vector<std::string> rowInputs; ///< elementwise: inputs read once per row of the output.
    std::string bias;
    std::vector<std::string> epilogueInputs;
    std::string stages; ///< pipeline: the stages as JSON text.
    std::string prologue;   ///< scan: what is scanned at a position; normalize: what is reduced.
    bool exclusive = false; ///< scan: without the element itself.
    bool reverse = false;   ///< scan: from the last position to the first.
    double scale = 1.0;     ///< attention: the factor of the scores (1 / sqrt(k) by default in PyTorch).
    bool causal = false;    ///< attention: keys after the query masked out.

    bool operator==(const OpRecipe &) const = default;
};

std::string toJson(const OpRecipe &recipe);
/// Parses an op's recipe; an Error names what is missing or unknown.
Expected<OpRecipe> recipeOf(const Op &op);

/// Whether a gemm recipe multiplies a batch of matrices.
bool isBatched(const OpRecipe &recipe);

/// Whether a norm recipe reads its weight and bias per channel of a group (GroupNorm) instead of per column.
bool hasChannelWeights(const OpRecipe &recipe);

/// The library call that computes a gemm recipe's product (what an op's policy must allow for the gemm-library
/// template): aten::matmul for a batch, aten::linear for a transposed B alone (nn.Linear), else aten::mm.
std::string gemmLibraryOp(const OpRecipe &recipe);

} // namespace kx
