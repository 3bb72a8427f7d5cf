#pragma once

// The matrix products among a pipeline's library stages, as parts that a gemm template can generate instead: each
// product becomes an op of its own (operands, optional bias, output; shape symbols of its own) with a gemm recipe,
// and says which pipeline tensors and dimensions its own stand for.
#include "core/codegen/oprecipe.h"
#include "core/codegen/pipeline.h"
#include "core/domain/op.h"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kx::pipelineproducts {

/// A library stage that computes a matrix product (aten::linear, mm, matmul, addmm, bmm) in gemm terms.
struct ProductPart
{
    std::size_t stage = 0;           ///< The product's library stage.
    std::vector<std::size_t> folded; ///< Transpose stages only the product reads: it reads their source instead.
    /// The elementwise stage right after it, of the product alone, whose chain became the part's epilogue (its
    /// output is what the part writes; the product itself is never stored).
    std::optional<std::size_t> epilogue;
    Op op;                                      ///< Inputs lhs, rhs (and addend, the bias), output product.
    OpRecipe recipe;                            ///< family "gemm", in the part's own shape symbols.
    std::map<std::string, std::string> tensors; ///< Each tensor of the part's op -> the pipeline tensor it is.
    std::map<std::string, std::string> symbols; ///< Each shape symbol of the part's op -> a pipeline expression.
    std::string formula;                        ///< "t0 = x @ w^T + b", for the source's comments.

    /// The pipeline tensor the part writes: the product's, or its epilogue stage's.
    const std::string &written() const { return tensors.at(op.outputs.front().name); }
};

/// Every library stage of the pipeline that maps onto a gemm recipe (others, and products of shapes the mapping
/// does not cover, such as vectors or broadcast batches, are left out and stay library calls). With fuseEpilogues,
/// the elementwise chain right after a product that reads it alone becomes the part's epilogue.
std::vector<ProductPart> productParts(const Op &op, const std::vector<PipelineStage> &stages,
                                      bool fuseEpilogues = true);

/// Multiply-adds of a part's product in the op's first shape set (0 without shape sets).
long long multiplyAdds(const ProductPart &part);

} // namespace kx::pipelineproducts
