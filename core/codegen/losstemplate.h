#pragma once

#include "core/codegen/kerneltemplate.h"

#include <string>

namespace kx {

/**
 * A loss: one float32 scalar, the sum of terms over the inputs divided by a count ("loss" recipes). prologue names
 * what a term is:
 * - "elementwise": one term an element; expression is CUDA C over the input names, every input of one shape
 *   [rows, cols] read at the same element (smooth L1: the difference's Huber term; KL divergence: q * (log q - p)).
 * - "cross-entropy": one term a row of logits x [rows, cols]: logsumexp(x[r, :]) - x[r, target[r]], the targets an
 *   int64 [rows] input whose values the trials draw from [0, cols) (its value range must say so).
 * - "triplet-margin": one term a row of anchor, positive and negative [rows, cols]: expression over `dpos` and
 *   `dneg`, the Euclidean norms of anchor - positive + eps and anchor - negative + eps (eps the recipe's).
 * reduction divides the sum: "mean" by the number of terms, "batchmean" by rows, "sum" by nothing.
 *
 * Deterministic, without atomics: the first kernel's blocks each write the sum of their share of the terms (a grid
 * of at most `partials` blocks striding over the elements or rows) to a scratch buffer; a second kernel of one block
 * adds those partials in a fixed order and divides. The same inputs give the same bits on every run.
 */
class LossTemplate : public KernelTemplate
{
public:
    std::string name() const override { return "loss"; }
    bool supports(const Op &op, const OpRecipe &recipe) const override;
    std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const override;
    Params defaults(const Op &op, const OpRecipe &recipe) const override;
    std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const override;
    GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const override;
};

namespace loss {

/// What a term of a loss recipe is over: "elementwise" terms or a term a row.
bool isRowLoss(const OpRecipe &recipe);
/// The number of terms (elements or rows) and the divisor of the sum, as plan expressions.
std::string termCount(const Op &op, const OpRecipe &recipe);
std::string divisor(const Op &op, const OpRecipe &recipe);

} // namespace loss

} // namespace kx
