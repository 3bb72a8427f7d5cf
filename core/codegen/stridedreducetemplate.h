#pragma once

#include "core/codegen/kerneltemplate.h"

namespace kx {

/**
 * A reduction (sum, mean, max, min, prod, argmax, argmin) over a middle dimension of x viewed as [rows, cols, inner]
 * (KernelBench's reductions over dimension 1 of [batch, dim1, dim2]): out[o, i] combines x[o, c, i] over c.
 * A block holds `tile` threads along i, each owning `vec` neighbouring positions, so a warp's loads are
 * neighbours and coalesce, and `slices` threads along c that walk it in steps and meet in shared memory at the end.
 * Where rows x inner is too small to fill the GPU, `split` blocks share each column's c range and leave partial
 * results in a scratch buffer that a second kernel combines.
 */
class StridedReduceTemplate : public KernelTemplate
{
public:
    std::string name() const override { return "reduce-strided"; }
    bool supports(const Op &op, const OpRecipe &recipe) const override;
    std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const override;
    Params defaults(const Op &op, const OpRecipe &recipe) const override;
    std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const override;
    GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const override;
};

} // namespace kx
