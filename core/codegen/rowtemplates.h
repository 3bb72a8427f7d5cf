#pragma once

// Templates for ops that work row by row over the last dimension of [rows, cols]: reductions,
// softmax and normalisations. They share the row-to-thread mapping (a warp or a block per row) and the
// reduction strategy (warp shuffles or shared memory).
#include "core/codegen/kerneltemplate.h"

namespace kx {

/// sum, mean, max, min, prod, argmax and argmin over the last dimension (inner "1"); reduce-strided takes the others.
class ReduceTemplate : public KernelTemplate
{
public:
    std::string name() const override { return "reduce"; }
    bool supports(const Op &op, const OpRecipe &recipe) const override;
    std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const override;
    Params defaults(const Op &op, const OpRecipe &recipe) const override;
    std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const override;
    GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const override;
};

/// softmax / log-softmax over the last dimension: three passes, or an online two-pass variant.
class SoftmaxTemplate : public KernelTemplate
{
public:
    std::string name() const override { return "softmax"; }
    bool supports(const Op &op, const OpRecipe &recipe) const override;
    std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const override;
    Params defaults(const Op &op, const OpRecipe &recipe) const override;
    std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const override;
    GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const override;
};

/// LayerNorm (weight, bias) and RMSNorm (weight) over the last dimension.
class NormTemplate : public KernelTemplate
{
public:
    std::string name() const override { return "norm"; }
    bool supports(const Op &op, const OpRecipe &recipe) const override;
    std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const override;
    Params defaults(const Op &op, const OpRecipe &recipe) const override;
    std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const override;
    GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const override;
};

} // namespace kx
