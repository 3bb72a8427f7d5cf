#pragma once

#include "core/codegen/kerneltemplate.h"

namespace kx {

/**
 * RMSNorm over a middle dimension of [outer, cols, inner] (KernelBench's RMSNorm over the features of an image
 * batch), with or without a [cols] weight: a thread per inner position (VEC of them with vector loads) walks the
 * normalised dimension twice, so every load is coalesced and the data is read from DRAM about once.
 */
class StridedNormTemplate : public KernelTemplate
{
public:
    std::string name() const override { return "norm-strided"; }
    bool supports(const Op &op, const OpRecipe &recipe) const override;
    std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const override;
    Params defaults(const Op &op, const OpRecipe &recipe) const override;
    std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const override;
    GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const override;
};

} // namespace kx
