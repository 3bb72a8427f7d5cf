#pragma once

#include "core/codegen/kerneltemplate.h"

namespace kx {

/// Fused elementwise kernels: out = f(inputs) over all elements (inputs may broadcast along leading
/// dimensions), with vector loads, unrolling,
/// a capped grid with a grid-stride loop, and optional fast-math intrinsics.
class ElementwiseTemplate : public KernelTemplate
{
public:
    std::string name() const override { return "elementwise"; }
    bool supports(const Op &op, const OpRecipe &recipe) const override;
    std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const override;
    Params defaults(const Op &op, const OpRecipe &recipe) const override;
    std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const override;
    GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const override;
};

/// Number of elements of a tensor as a plan expression ("R*C"), from its shape.
std::string elementCountExpression(const TensorSpec &tensor);
/// True when an input has fewer elements than the output and repeats along the leading dimensions.
bool isBroadcast(const TensorSpec &input, const TensorSpec &output);

} // namespace kx
