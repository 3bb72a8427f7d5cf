#pragma once

// What the attention templates (composed steps and the fused kernel) share: the op's tensors in attention roles
// and their checks.
#include "core/codegen/kerneltemplate.h"

#include <string>

namespace kx::attention {

/// The op's tensors in attention roles: the inputs q, k, v in that order, one output.
struct AttentionTensors
{
    const TensorSpec *q = nullptr, *k = nullptr, *v = nullptr, *out = nullptr;
    std::string valueDim; ///< v's last dimension
};

/// Empty when the op has float32 q [leading..., m, k], k [leading..., n, k], v [leading..., n, dv] and out
/// [leading..., m, dv] as the recipe says, and a positive scale (tensors is then filled in); otherwise why not.
std::string checkTensors(const Op &op, const OpRecipe &recipe, AttentionTensors &tensors);

/// The product of the recipe's leading dimensions as a plan expression ("B * H"; "1" without any).
std::string batchExpression(const OpRecipe &recipe);

} // namespace kx::attention
