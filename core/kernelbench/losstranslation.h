#pragma once

#include "core/domain/op.h"
#include "core/kernelbench/opgraph.h"
#include "core/util/expected.h"

namespace kx {

/**
 * Turns a graph around one loss call into a "loss" recipe (core/codegen/losstemplate.h):
 * - aten::smooth_l1_loss and aten::huber_loss (after the aten::broadcast_tensors and prim::ListUnpack that
 *   F.smooth_l1_loss traces, where nothing broadcasts) and aten::kl_div are elementwise terms; elementwise calls
 *   before the loss (the log of kl_div(torch.log(p), q)) are fused into the term;
 * - aten::cross_entropy_loss of logits [N, C] and int64 class indices [N] is a row term (logsumexp minus the target's
 *   logit); the targets get the value range [0, C), so the trials draw class indices;
 * - aten::triplet_margin_loss of three [N, D] inputs with p = 2 is a row term (the hinge of the two distances);
 * - torch.mean or torch.sum of everything after elementwise calls of inputs of one shape (MSE) is an elementwise
 *   term; where an input broadcasts (hinge's targets), the pipeline takes the graph as before.
 * Reductions mean and sum; a sum divided by the size of the first dimension (aten::size, prim::NumToTensor,
 * aten::div: reduction='batchmean') is batchmean. Refused with the reason: no reduction, class weights, an
 * ignore_index inside the classes, label smoothing, probability targets, other norms than 2, swap, operands that
 * broadcast, and calls after the loss.
 */
class LossTranslator
{
public:
    /// Whether the graph calls a loss, or reduces elementwise calls to a mean or sum of everything: then translate()
    /// decides first.
    static bool appliesTo(const OpGraph &graph);
    /// The op with its loss recipe, tolerances and the targets' value range, or an Error that says what does not fit.
    static Expected<Op> translate(const OpGraph &graph, Op op);
};

} // namespace kx
