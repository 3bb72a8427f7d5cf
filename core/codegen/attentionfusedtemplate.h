#pragma once

#include "core/codegen/kerneltemplate.h"

namespace kx {

/**
 * Scaled dot-product attention in one kernel for head dims up to 128 (flash-style, fp32 FMA): each block keeps a
 * tile of query rows in shared memory and streams tiles of keys and values through it; a group of threads per
 * query row computes the tile's scores, keeps a running maximum and sum (online softmax, the output rescaled when
 * the maximum grows) and accumulates the weighted values in registers. No scores reach global memory. Longer head
 * dims (KernelBench's 1024) are the attention template's: a query row no longer fits on chip. Tunes the query rows
 * a block, the keys a tile, the threads a row and fast-math exponentials.
 */
class AttentionFusedTemplate : public KernelTemplate
{
public:
    std::string name() const override { return "attention-fused"; }
    bool supports(const Op &op, const OpRecipe &recipe) const override;
    std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const override;
    Params defaults(const Op &op, const OpRecipe &recipe) const override;
    std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const override;
    GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const override;
};

} // namespace kx
