#pragma once

#include "core/codegen/kerneltemplate.h"

namespace kx {

/**
 * Matrix transpose out[c, r] = in[r, c] of a [rows, cols] float32 matrix. Blocks of TILE x ROWS threads
 * move TILE x TILE tiles, either directly (coalesced reads, strided writes) or staged through a shared
 * tile (padded against bank conflicts) so that both reads and writes are coalesced.
 */
class TransposeTemplate : public KernelTemplate
{
public:
    std::string name() const override { return "transpose"; }
    bool supports(const Op &op, const OpRecipe &recipe) const override;
    std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const override;
    Params defaults(const Op &op, const OpRecipe &recipe) const override;
    std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const override;
    GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const override;
};

} // namespace kx
