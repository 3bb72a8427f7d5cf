#pragma once

#include "core/codegen/kerneltemplate.h"

namespace kx {

/**
 * Scaled dot-product attention ("attention" recipes) as three generated kernels that other templates write: the
 * scores scale * q @ k^T as a batched product with b transposed (the scale, and a causal mask, in its epilogue),
 * a row softmax of the scores, and the batched product of the probabilities with v. The scores and probabilities
 * live in scratch buffers ([batch * m, n] each): the plan for long head dimensions (KernelBench's 1024), where a
 * fused kernel cannot keep a query row on chip. The products run on the gemm template (CUDA cores) or the
 * gemm-tensorcore template (3xTF32 or TF32); the softmax step's parameters are the softmax template's.
 */
class AttentionTemplate : public KernelTemplate
{
public:
    std::string name() const override { return "attention"; }
    bool supports(const Op &op, const OpRecipe &recipe) const override;
    std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const override;
    Params defaults(const Op &op, const OpRecipe &recipe) const override;
    std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const override;
    GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const override;
};

} // namespace kx
