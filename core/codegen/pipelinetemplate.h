#pragma once

#include "core/codegen/kerneltemplate.h"

namespace kx {

/**
 * Ops of several calls ("pipeline" recipes, see core/codegen/pipeline.h): each fused elementwise chain and each
 * reduction becomes a kernel of its own, library calls run through LibTorch in between, and intermediates live
 * in scratch buffers. The parameters tune the generated kernels. A library stage that is a matrix product may run
 * as a gemm template's kernels instead (the product gene: gemm-wgmma or gemm-tensorcore, composed as a part).
 */
class PipelineTemplate : public KernelTemplate
{
public:
    std::string name() const override { return "pipeline"; }
    bool supports(const Op &op, const OpRecipe &recipe) const override;
    std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const override;
    Params defaults(const Op &op, const OpRecipe &recipe) const override;
    std::vector<Params> alternatives(const Op &op, const OpRecipe &recipe) const override;
    Params tf32Changes(const Op &op, const OpRecipe &recipe) const override;
    std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const override;
    GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const override;
};

} // namespace kx
