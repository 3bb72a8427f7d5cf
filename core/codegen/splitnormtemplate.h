#pragma once

#include "core/codegen/kerneltemplate.h"

namespace kx {

/**
 * LayerNorm and RMSNorm over rows too long for one block (LayerNorm over the trailing dimensions of a large
 * tensor: a handful of rows of millions of elements). Each row is cut into chunks, one block a chunk, in two
 * kernels: partial sums into a scratch buffer, then the row's statistics and the chunk normalised. Supports only
 * ops whose rows are long in every shape set; shorter rows are the norm template's.
 */
class SplitNormTemplate : public KernelTemplate
{
public:
    std::string name() const override { return "norm-split"; }
    bool supports(const Op &op, const OpRecipe &recipe) const override;
    std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const override;
    Params defaults(const Op &op, const OpRecipe &recipe) const override;
    std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const override;
    GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const override;
};

} // namespace kx
