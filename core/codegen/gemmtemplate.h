#pragma once

#include "core/codegen/kerneltemplate.h"

namespace kx {

/**
 * Shared-memory tiled matrix multiply with a fused epilogue: out[m, n] = epilogue(sum_k a[m, k] * b[k, n]
 * + bias[n]), b optionally given as [n, k] (nn.Linear). Tunes the block tile (BM x BN x BK), the thread
 * tile (TM x TN), shared-memory padding, float4 global loads, double-buffered shared tiles and split-K
 * (partial sums in a scratch buffer, reduced by a second kernel that applies bias and epilogue).
 */
class GemmTemplate : public KernelTemplate
{
public:
    std::string name() const override { return "gemm"; }
    bool supports(const Op &op, const OpRecipe &recipe) const override;
    std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const override;
    Params defaults(const Op &op, const OpRecipe &recipe) const override;
    std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const override;
    GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const override;
};

} // namespace kx
