#pragma once

#include "core/codegen/kerneltemplate.h"

namespace kx {

/**
 * Each row of [rows, cols] divided by a statistic of it: KernelBench's L1 normalisation (x / mean(|x|)) and L2
 * normalisation (x / ||x||) over the last dimension. The statistic is a reduction (sum, mean or max) of a prologue of
 * each element, finished by an epilogue; a warp or a block a row reads the row twice, once for the statistic and once
 * to write the result, where eager PyTorch writes and reads the prologue's tensor and the statistic in between.
 */
class NormalizeTemplate : public KernelTemplate
{
public:
    std::string name() const override { return "normalize"; }
    bool supports(const Op &op, const OpRecipe &recipe) const override;
    std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const override;
    Params defaults(const Op &op, const OpRecipe &recipe) const override;
    std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const override;
    GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const override;
};

} // namespace kx
