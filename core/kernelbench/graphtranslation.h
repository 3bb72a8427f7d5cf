#pragma once

// Inside GraphTranslator: the translation of one graph into the recipe of one code template.
#include "core/codegen/oprecipe.h"
#include "core/domain/op.h"
#include "core/kernelbench/opgraph.h"
#include "core/kernelbench/symbolnames.h"
#include "core/util/expected.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kx::translation {

std::string shapeText(const std::vector<std::int64_t> &shape);
/// Drops leading size-1 dimensions (they do not change how an operand broadcasts).
std::vector<std::int64_t> withoutLeadingOnes(std::vector<std::int64_t> shape);

/// How an op input takes part in the expression of the value being computed. Rows: the input's dimensions are the
/// output's leading ones followed by ones (one value per row of the rest, [N, 1] against [N, M]).
enum class Broadcast { Full, Trailing, PerChannel, Rows, Other };
Broadcast broadcastOf(const std::vector<std::int64_t> &input, const std::vector<std::int64_t> &output);

bool isDigits(const std::string &text);
std::string join(const std::vector<std::string> &items, const std::string &separator);

/// An operand of a product: which op input it is, and whether the product reads it transposed.
struct ProductOperand
{
    int input = -1;
    bool transposed = false;
};

/// Turns one graph into one single-template recipe; every method returns an Error that says what does not fit.
/// The row families (reductions, softmax, norms) are in rowtranslation.cpp, the products in gemmtranslation.cpp,
/// attention in attentiontranslation.cpp, the others in graphtranslation.cpp.
class Translation
{
public:
    Translation(const OpGraph &graph, Op op)
        : m_graph(graph)
        , m_op(std::move(op))
        , m_symbols(m_op)
    {}

    Expected<Op> run();

private:
    using InputOperand = std::function<Expected<std::string>(int input, const std::vector<std::int64_t> &shape)>;

    std::string canonical(const std::string &value) const
    {
        const auto it = m_alias.find(value);
        return it == m_alias.end() ? value : it->second;
    }
    int inputIndex(const GraphArgument &argument) const
    {
        if (!argument.isTensor)
            return -1;
        const auto it = m_inputs.find(canonical(argument.tensor.value));
        return it == m_inputs.end() ? -1 : it->second;
    }
    const GraphArgument *argument(const GraphNode &node, std::size_t i) const
    {
        return i < node.inputs.size() ? &node.inputs[i] : nullptr;
    }
    Expected<std::string> chain(std::size_t first, const std::string &startValue, const std::string &startExpression,
                                const InputOperand &inputOperand);
    Expected<Op> elementwise();
    /// An input read by an elementwise expression: whole, broadcast over trailing dimensions or once per row (then
    /// added to the recipe's rowInputs).
    Expected<std::string> elementwiseOperand(int index, const std::vector<std::int64_t> &shape, OpRecipe &recipe);
    /// Takes the calls that only present a product's operands or result differently out of m_nodes: transposes
    /// and diagonal matrices that only a product reads, and a triu or tril of the result.
    void foldProductViews();
    Expected<Op> gemm();
    Expected<ProductOperand> productOperand(const GraphNode &node, const GraphArgument &argument) const;
    Expected<std::pair<ProductOperand, ProductOperand>> einsumOperands(const GraphNode &node) const;
    /// The gemm recipe's shapes and layout for a product of a and b: transposes, batch, folded rows, triangle.
    Expected<OpRecipe> productLayout(const GraphNode &node, const ProductOperand &a, const ProductOperand &b) const;
    /// diag(v) @ b or b @ diag(v): scales b's rows or columns, an elementwise recipe.
    Expected<Op> diagonalProduct(const GraphNode &node, bool diagonalFirst);
    Expected<Op> conv();
    Expected<Op> rows();
    Expected<Op> reduce();
    std::optional<Expected<Op>> rmsNorm();
    /// GroupNorm and InstanceNorm (normtranslation.cpp): layernorm rows of (sample, group) with per-channel weights.
    Expected<Op> groupNorm(const GraphNode &node);
    Expected<Op> instanceNorm(const GraphNode &node);
    /// x [N, C, ...] as rows N * groups of the dimensions `columns` (their product divided by `divisor`); weight
    /// and bias of [C] are the op's inputs 1 and 2 (or both absent).
    Expected<Op> channelGroups(const GraphNode &node, const std::string &groups,
                               const std::vector<std::string> &columns, std::int64_t divisor,
                               const GraphArgument *weight, const GraphArgument *bias, double eps);
    /// x divided by a statistic of its rows (L1 and L2 normalisation), for the normalize template.
    std::optional<Expected<Op>> normalization();
    Expected<Op> transpose();
    /// scaled_dot_product_attention (attentiontranslation.cpp) as an attention recipe.
    Expected<Op> attention();
    /// rows: the dimensions before @p dimension; cols: @p columnDimensions from it (LayerNorm may normalise several).
    Status rowSymbols(const TensorSpec &input, std::size_t dimension, OpRecipe &recipe,
                      std::size_t columnDimensions = 1);
    /// A symbol for the product of dimensions (divided by divisor, which must divide it in every shape set): the
    /// dimension itself where it is one symbol, else a new one bound in every shape set.
    Status derivedSymbol(const std::string &preferred, const std::vector<std::string> &dimensions, std::string &symbol,
                         std::int64_t divisor = 1);
    Expected<std::size_t> lastDimension(const GraphNode &node, const nlohmann::json &dims) const;
    /// The dimensions a reduction call reduces, [first, last] of its input: one, or a list of neighbours.
    Expected<std::pair<std::size_t, std::size_t>> reducedDimensions(const GraphNode &node) const;
    Expected<Op> finish(const OpRecipe &recipe, double atol, double rtol)
    {
        m_op.recipe = toJson(recipe);
        m_op.policy.atol = atol;
        m_op.policy.rtol = rtol;
        return m_op;
    }

    const OpGraph &m_graph;
    Op m_op;
    SymbolNames m_symbols;
    std::map<std::string, std::string> m_alias; // view results -> the value they view
    std::map<std::string, int> m_inputs;        // graph input values -> index into m_op.inputs
    std::vector<const GraphNode *> m_nodes;     // the calls that compute something, in order
    std::vector<std::int64_t> m_outputShape;
    std::map<std::string, std::string> m_transposed; // transposes a product reads -> the value they transpose
    std::map<std::string, std::string> m_diagonals;  // diag(v) a product reads -> v
    std::string m_triangle;                          // "upper" or "lower": a triu or tril of the product
    int m_triangleDiagonal = 0;
};

} // namespace kx::translation
