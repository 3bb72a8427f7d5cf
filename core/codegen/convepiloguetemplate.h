#pragma once

#include "core/codegen/kerneltemplate.h"

namespace kx {

/**
 * Convolution with a fused epilogue: a library step (aten::conv2d of x and weight, stride 1, no padding)
 * writes the raw convolution into a scratch buffer, then one elementwise kernel applies the recipe's
 * epilogue over `acc`, the output channel `c` and the bias, writing y [B, C_out, OH, OW]. Tunes the
 * epilogue kernel's block size, vector width and items per thread.
 */
class ConvEpilogueTemplate : public KernelTemplate
{
public:
    std::string name() const override { return "conv-epilogue"; }
    bool supports(const Op &op, const OpRecipe &recipe) const override;
    std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const override;
    Params defaults(const Op &op, const OpRecipe &recipe) const override;
    std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const override;
    GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const override;
};

} // namespace kx
