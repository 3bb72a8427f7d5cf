#pragma once

#include "core/domain/op.h"
#include "core/kernelbench/opgraph.h"
#include "core/util/expected.h"

#include <string>
#include <vector>

namespace kx {

/**
 * Turns the traced op graph of an imported model into an OpRecipe the code templates accept:
 * an elementwise chain fused into one expression; a reduction, softmax, LayerNorm or RMSNorm over the last
 * dimension; nn.Linear / matmul / addmm with an elementwise epilogue; a 2-D transpose; conv2d with an
 * elementwise epilogue (the convolution as a library step). The op's tensors come from the same import
 * (names, symbolic shapes, shape sets); the graph's shapes are those of the first shape set.
 */
class GraphTranslator
{
public:
    /// Returns op with recipe, policy (tolerances, library steps) and, for row ops whose rows or columns are
    /// not a single shape symbol, a derived symbol added to every shape set. An Error lists the unsupported
    /// calls, or says which supported call is used in a way the templates cannot generate.
    Expected<Op> translate(const OpGraph &graph, Op op) const;

    /// Whether the translator handles calls of this kind (e.g. "aten::relu").
    static bool knowsKind(const std::string &kind);
    /// The calls of graph that the translator does not handle, each once, in graph order.
    static std::vector<std::string> unsupportedCalls(const OpGraph &graph);
};

} // namespace kx
