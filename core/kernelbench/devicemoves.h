#pragma once

#include "core/kernelbench/opgraph.h"

namespace kx {

/**
 * The traced graph without the device moves a forward makes. torch.tensor(c, device=x.device) (or a constant
 * tensor moved later) is traced as aten::to of the number c, and x.to(device) as aten::to of the tensor x; the
 * device they name is where the import traced the model, not where candidates run, and everything runs on one
 * device anyway. So:
 * - a move that keeps a tensor's dtype is the tensor itself: its readers read the tensor;
 * - a one-element constant (with the views of it, such as detach) becomes the number, in the dtype the call
 *   makes, for the elementwise calls that read it (torch.min(x, torch.tensor(0.5)) is an elementwise min with
 *   0.5). A call of another kind that reads it as a tensor keeps the calls that make it.
 * Folding a folded graph changes nothing.
 */
OpGraph withDeviceMovesFolded(const OpGraph &graph);

} // namespace kx
