#pragma once

#include "core/codegen/kerneltemplate.h"

namespace kx {

/**
 * Matrix multiply on tensor cores with warp-level mma.sync (TF32 m16n8k8, fp32 accumulation) and the same fused
 * epilogue as the gemm template, applied to the accumulators in registers. fp32 operands are split into a TF32
 * part and a TF32 remainder: three products (3xTF32) keep fp32 accuracy, one product (plain TF32, 10-bit
 * mantissas) is faster and only as accurate as TF32. Tunes the block tile, the warp grid (and so each warp's
 * tile of 16 x 8 mma tiles), the k slice, the depth of the cp.async pipeline that stages slices in shared memory,
 * and the order in which blocks walk the output (groups of row tiles share their b columns in L2).
 * Needs sm_80 or newer.
 */
class GemmTensorCoreTemplate : public KernelTemplate
{
public:
    std::string name() const override { return "gemm-tensorcore"; }
    bool supports(const Op &op, const OpRecipe &recipe) const override;
    std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const override;
    Params defaults(const Op &op, const OpRecipe &recipe) const override;
    Params tf32Changes(const Op &op, const OpRecipe &recipe) const override;
    std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const override;
    GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const override;
};

} // namespace kx
