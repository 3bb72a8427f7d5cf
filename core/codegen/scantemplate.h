#pragma once

#include "core/codegen/kerneltemplate.h"

namespace kx {

/**
 * Scans (cumulative sums and products: inclusive or exclusive, forward or reverse) along one dimension of
 * [rows, cols, inner], with an elementwise prologue over the inputs and an epilogue over the result. Along the last
 * dimension (inner 1) a row is cut into tiles of block x items elements: one block scans a whole row tile by tile,
 * or each tile gets its own block and the tiles of a row are chained by a single-pass decoupled look-back (sums
 * only). Along a middle dimension a thread scans a line in order.
 */
class ScanTemplate : public KernelTemplate
{
public:
    std::string name() const override { return "scan"; }
    bool supports(const Op &op, const OpRecipe &recipe) const override;
    std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const override;
    Params defaults(const Op &op, const OpRecipe &recipe) const override;
    std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const override;
    GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const override;
};

} // namespace kx
