#pragma once

#include "core/codegen/kerneltemplate.h"

namespace kx {

/**
 * Matrix multiply on tensor cores (WMMA, TF32 inputs, fp32 accumulation) with the same fused epilogue as the
 * gemm template. fp32 operands are split into a TF32 part and a TF32 remainder: three products (3xTF32) keep
 * fp32 accuracy, one product (plain TF32, 10-bit mantissas) is faster and only as accurate as TF32. Tunes the
 * block tile, the warp grid (and so each warp's tile of 16 x 16 fragments), the k slice, and the depth of the
 * cp.async pipeline that stages slices in shared memory. Needs sm_80 or newer.
 */
class GemmTensorCoreTemplate : public KernelTemplate
{
public:
    std::string name() const override { return "gemm-tensorcore"; }
    bool supports(const Op &op, const OpRecipe &recipe) const override;
    std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const override;
    Params defaults(const Op &op, const OpRecipe &recipe) const override;
    std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const override;
    GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const override;
};

} // namespace kx
