#pragma once

#include "core/codegen/kerneltemplate.h"

namespace kx {

/**
 * The product as a library step (aten::mm, or aten::linear when b is [n, k]) into a scratch buffer, then the
 * bias and epilogue in one generated elementwise kernel: for GEMM chains whose op allows the library call, the
 * vendor GEMM with everything after it fused into a single pass. Tunes the epilogue's block size and elements
 * per thread.
 */
class GemmLibraryTemplate : public KernelTemplate
{
public:
    std::string name() const override { return "gemm-library"; }
    bool supports(const Op &op, const OpRecipe &recipe) const override;
    std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const override;
    Params defaults(const Op &op, const OpRecipe &recipe) const override;
    std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const override;
    GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const override;
};

} // namespace kx
