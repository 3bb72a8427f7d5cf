#pragma once

#include "core/codegen/kerneltemplate.h"

namespace kx {

/**
 * LayerNorm, RMSNorm, InstanceNorm and GroupNorm over rows too long for one block but short enough for the shared
 * memory of one Hopper thread-block cluster (sm_90): a cluster of 2, 4, 8 or 16 blocks (16: not portable, the launcher
 * opts in) holds a row, each block its chunk, so the row is read from DRAM once and written once (norm-split reads it
 * twice). Each block adds its chunk while staging it; the blocks exchange their partial sums through distributed shared
 * memory (every block adds them in rank order, so all agree and the result is deterministic), then the centred second
 * moment comes from shared memory the same way, and the chunk is normalised from shared memory. Supports only ops whose
 * rows are long in every shape set and fit the largest cluster; the kernels refuse to compile before sm_90.
 */
class ClusterNormTemplate : public KernelTemplate
{
public:
    std::string name() const override { return "norm-cluster"; }
    bool supports(const Op &op, const OpRecipe &recipe) const override;
    std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const override;
    Params defaults(const Op &op, const OpRecipe &recipe) const override;
    std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const override;
    GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const override;
};

} // namespace kx
