// The row families of a graph translation: reductions over any dimensions, softmax, LayerNorm and RMSNorm.
#include "core/kernelbench/graphtranslation.h"

#include "core/kernelbench/atencalls.h"

#include <algorithm>
#include <cmath>

namespace kx::translation {

using namespace atencalls;

namespace {

// Whether a call sees the input x with the sizes it is declared with (in the first shape set).
bool seenAsDeclared(const std::vector<std::int64_t> &shape, const TensorSpec &x, const std::vector<ShapeSet> &sets)
{
    const auto declared = [&](const std::string &dimension) -> std::optional<std::int64_t> {
        if (isDigits(dimension))
            return std::stoll(dimension);
        if (sets.empty() || !sets.front().count(dimension))
            return std::nullopt;
        return sets.front().at(dimension);
    };
    if (shape.size() != x.shape.size())
        return false;
    for (std::size_t d = 0; d < shape.size(); ++d)
        if (declared(x.shape[d]) != shape[d])
            return false;
    return true;
}

} // namespace

Expected<std::size_t> Translation::lastDimension(const GraphNode &node, const nlohmann::json &dims) const
{
    const auto &shape = node.inputs.front().tensor.shape;
    const auto dim = integer(dims);
    if (!dim)
        return Error{node.kind + " over " + (dims.is_null() ? std::string("all dimensions") : dims.dump())
                     + ": the templates reduce over one dimension"};
    const auto rank = std::int64_t(shape.size());
    const std::int64_t d = *dim < 0 ? *dim + rank : *dim;
    if (d < 0 || d >= rank)
        return Error{node.kind + " over dimension " + std::to_string(*dim) + " of a " + std::to_string(rank)
                     + "-D input"};
    for (std::int64_t i = d + 1; i < rank; ++i)
        if (shape[std::size_t(i)] != 1)
            return Error{node.kind + " over dimension " + std::to_string(*dim) + " of " + shapeText(shape)
                         + ": the templates work over the last dimension"};
    return std::size_t(d);
}

Expected<std::pair<std::size_t, std::size_t>> Translation::reducedDimensions(const GraphNode &node) const
{
    const auto &shape = node.inputs.front().tensor.shape;
    const auto rank = std::int64_t(shape.size());
    // The overloads over all dimensions take no dimension argument: sum(x, dtype), max(x), prod(x, dtype).
    const bool overAll = node.inputs.size() < 3 && node.kind != "aten::argmax" && node.kind != "aten::argmin";
    const auto dims = overAll ? nlohmann::json() : node.inputs[1].constant;
    std::vector<std::int64_t> list;
    if (const auto one = integer(dims))
        list = {*one};
    else if (const auto several = integers(dims))
        list = *several;
    if (list.empty())
        return Error{node.kind + " over all dimensions: the reduce templates keep at least one"};
    for (auto &d : list) {
        if (d < -rank || d >= rank)
            return Error{node.kind + " over dimension " + std::to_string(d) + " of a " + std::to_string(rank)
                         + "-D input"};
        d = d < 0 ? d + rank : d;
    }
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    if (list.back() - list.front() + 1 != std::int64_t(list.size()))
        return Error{node.kind + " over dimensions " + dims.dump() + " of " + shapeText(shape)
                     + ": the reduce templates take neighbouring dimensions"};
    return std::pair{std::size_t(list.front()), std::size_t(list.back())};
}

Expected<Op> Translation::reduce()
{
    const GraphNode &node = *m_nodes.front();
    const auto &kind = node.kind;
    if (node.inputs.size() > 1 && node.inputs[1].isTensor)
        return Error{kind + " of two tensors is elementwise, not a reduction"};
    OpRecipe recipe;
    recipe.family = "reduce";
    if (kind == "aten::max" || kind == "aten::min") {
        // Over a dimension they return the values and the indices; the indices alone are argmax and argmin.
        const std::string result = canonical(m_graph.outputs.front());
        if (node.outputs.size() == 2 && node.outputs[1].value == result)
            recipe.reduction = "arg" + kind.substr(6);
        else
            recipe.reduction = kind.substr(6);
    } else {
        recipe.reduction = kind == "aten::amax" ? "max" : kind == "aten::amin" ? "min" : kind.substr(6);
    }
    if ((kind == "aten::sum" || kind == "aten::mean" || kind == "aten::prod") && node.inputs.size() > 3
        && !node.inputs[3].constant.is_null())
        return Error{kind + " with a dtype"};
    const auto dimensions = reducedDimensions(node);
    if (!dimensions)
        return dimensions.error();
    const auto [first, last] = *dimensions;
    const TensorSpec &x = m_op.inputs.front();
    const auto &shape = node.inputs.front().tensor.shape;
    if (m_op.inputs.size() != 1)
        return Error{"the op has inputs that " + kind + " does not use"};
    // The recipe names x's declared dimensions: the call must see x as declared, not a view that regroups them.
    if (!seenAsDeclared(shape, x, m_op.shapeSets))
        return Error{kind + " of " + shapeText(shape) + ", a view of " + x.name
                     + " with other dimensions than it is declared with"};
    if (auto status = rowSymbols(x, first, recipe, last - first + 1); !status)
        return status.error();
    const bool lastDimensions =
        std::all_of(shape.begin() + std::ptrdiff_t(last) + 1, shape.end(), [](auto size) { return size == 1; });
    if (!lastDimensions) {
        const std::vector<std::string> after(x.shape.begin() + std::ptrdiff_t(last) + 1, x.shape.end());
        if (auto status = derivedSymbol("I", after, recipe.inner); !status)
            return status.error();
    }
    // Sums and products in another order than PyTorch's: the rounding grows with the number of terms.
    std::int64_t terms = 1;
    for (auto d = first; d <= last; ++d)
        terms *= shape[d];
    const bool arithmetic = recipe.reduction == "sum" || recipe.reduction == "mean" || recipe.reduction == "prod";
    return finish(recipe, arithmetic ? std::max(1e-2, summationAtol(terms)) : 1e-2, 1e-3);
}

Status Translation::derivedSymbol(const std::string &preferred, const std::vector<std::string> &dimensions,
                                  std::string &symbol, std::int64_t divisor)
{
    if (dimensions.size() == 1 && !isDigits(dimensions.front()) && divisor == 1) {
        symbol = dimensions.front();
        return {};
    }
    symbol = preferred;
    for (int suffix = 2; std::any_of(m_op.shapeSets.begin(), m_op.shapeSets.end(),
                                     [&](const ShapeSet &set) { return set.count(symbol) > 0; });
         ++suffix)
        symbol = preferred + std::to_string(suffix);
    for (auto &set : m_op.shapeSets) {
        std::int64_t value = 1;
        for (const auto &dimension : dimensions) {
            if (isDigits(dimension))
                value *= std::stoll(dimension);
            else if (set.count(dimension))
                value *= set.at(dimension);
            else
                return Error{"a shape set does not bind " + dimension};
        }
        if (value % divisor != 0)
            return Error{"a shape set's " + join(dimensions, " * ") + " (" + std::to_string(value)
                         + ") is not a multiple of " + std::to_string(divisor)};
        set[symbol] = value / divisor;
    }
    return {};
}

Status Translation::rowSymbols(const TensorSpec &input, std::size_t dimension, OpRecipe &recipe,
                               std::size_t columnDimensions)
{
    if (input.shape.size() < dimension + columnDimensions)
        return Error{"input " + input.name + " is declared with fewer dimensions than the graph uses"};
    const auto first = input.shape.begin() + std::ptrdiff_t(dimension);
    const std::vector<std::string> leading(input.shape.begin(), first);
    if (auto status = derivedSymbol("R", leading.empty() ? std::vector<std::string>{"1"} : leading, recipe.rows);
        !status)
        return status;
    return derivedSymbol("C", std::vector<std::string>(first, first + std::ptrdiff_t(columnDimensions)), recipe.cols);
}

Expected<Op> Translation::rows()
{
    const GraphNode &node = *m_nodes.front();
    if (m_nodes.size() > 1)
        return Error{node.kind + " followed by " + m_nodes[1]->kind
                     + ": the row templates generate no epilogue after it"};
    if (node.inputs.empty() || inputIndex(node.inputs.front()) != 0)
        return Error{node.kind + " of something other than the first input"};
    const auto &x = m_op.inputs.front();
    const auto constantAt = [&](std::size_t i) {
        return i < node.inputs.size() ? node.inputs[i].constant : nlohmann::json();
    };
    OpRecipe recipe;
    double atol = 1e-4, rtol = 1e-3;
    std::size_t inputs = 1;
    std::size_t normalizedDimensions = 1;
    if (reduceKinds().count(node.kind)) {
        return reduce();
    } else if (node.kind == "aten::softmax" || node.kind == "aten::_softmax" || node.kind == "aten::log_softmax"
               || node.kind == "aten::_log_softmax") {
        recipe.family = "softmax";
        recipe.reduction = node.kind.find("log") != std::string::npos ? "logsoftmax" : "softmax";
        if (node.kind.front() != '_' && node.kind.find("::_") == std::string::npos && !constantAt(2).is_null())
            return Error{node.kind + " with a dtype"};
        atol = 1e-5;
    } else if (node.kind == "aten::layer_norm") {
        recipe.family = "norm";
        recipe.reduction = "layernorm";
        // Over the trailing dimensions: rows of their product, with weight and bias read flat.
        const auto normalized = integers(constantAt(1));
        const auto &shape = node.inputs.front().tensor.shape;
        if (!normalized || normalized->empty() || normalized->size() > shape.size()
            || !std::equal(normalized->begin(), normalized->end(), shape.end() - std::ptrdiff_t(normalized->size())))
            return Error{"aten::layer_norm whose normalized_shape is not the input's trailing dimensions"};
        normalizedDimensions = normalized->size();
        const auto *weight = argument(node, 2);
        const auto *bias = argument(node, 3);
        if (!weight || !bias || inputIndex(*weight) != 1 || inputIndex(*bias) != 2)
            return Error{"aten::layer_norm without weight and bias inputs (the norm template needs x, weight, bias)"};
        recipe.eps = number(constantAt(4)).value_or(1e-5);
        inputs = 3;
    } else if (node.kind == "aten::instance_norm") {
        return instanceNorm(node);
    } else if (node.kind == "aten::group_norm") {
        return groupNorm(node);
    } else {
        return Error{node.kind + " is not supported here"};
    }
    const auto rank = std::int64_t(node.inputs.front().tensor.shape.size());
    auto dimension = recipe.family == "norm" ? Expected<std::size_t>(std::size_t(rank) - normalizedDimensions)
                                             : lastDimension(node, constantAt(1));
    if (!dimension)
        return dimension.error();
    if (m_op.inputs.size() != inputs)
        return Error{"the op has inputs that " + node.kind + " does not use"};
    if (auto status = rowSymbols(x, *dimension, recipe, normalizedDimensions); !status)
        return status.error();
    return finish(recipe, atol, rtol);
}

std::optional<Expected<Op>> Translation::normalization()
{
    // x / f(statistic(g(x))) over the last dimension, keepdim: g and f chains of elementwise calls on one value (L1
    // normalisation: x / mean(abs(x)); L2: x / norm(x, 2)). Anything else is left to the other translations.
    const auto &n = m_nodes;
    const GraphNode &division = *n.back();
    if (n.size() < 2 || division.kind != "aten::div" || division.inputs.size() < 2 || inputIndex(division.inputs[0]) != 0
        || !division.inputs[1].isTensor || division.outputs.empty()
        || canonical(m_graph.outputs.front()) != division.outputs[0].value || m_op.inputs.size() != 1)
        return std::nullopt;
    std::size_t r = 0;
    while (r < n.size() && isElementwise(n[r]->kind))
        ++r;
    if (r + 1 >= n.size())
        return std::nullopt;
    std::string previous; // the value the chain has computed so far; empty: x
    const auto readsPrevious = [&](const GraphArgument &argument) {
        return argument.isTensor && (previous.empty() ? inputIndex(argument) == 0 : canonical(argument.tensor.value) == previous);
    };
    // One call of a chain over `current` and constants, or nothing.
    const auto step = [&](const GraphNode &node, const std::string &current) -> std::optional<std::string> {
        if (node.outputs.size() != 1)
            return std::nullopt;
        auto expression = elementwiseExpression(node, [&](std::size_t i) -> Expected<std::string> {
            const auto &argument = node.inputs[i];
            if (readsPrevious(argument))
                return current;
            if (const auto value = argument.isTensor ? std::nullopt : number(argument.constant))
                return floatLiteral(*value);
            return Error{"not a chain"};
        });
        if (!expression)
            return std::nullopt;
        previous = node.outputs[0].value;
        return *expression;
    };
    std::string prologue = "v";
    for (std::size_t i = 0; i < r; ++i) {
        auto next = step(*n[i], prologue);
        if (!next)
            return std::nullopt;
        prologue = *next;
    }
    const GraphNode &statistic = *n[r];
    if (statistic.inputs.empty() || !readsPrevious(statistic.inputs[0]))
        return std::nullopt;
    const auto constantAt = [&](std::size_t i) {
        return i < statistic.inputs.size() && !statistic.inputs[i].isTensor ? statistic.inputs[i].constant
                                                                              : nlohmann::json();
    };
    OpRecipe recipe;
    recipe.family = "normalize";
    std::string epilogue = "acc";
    std::size_t dimsAt = 1;
    if (statistic.kind == "aten::sum" || statistic.kind == "aten::mean" || statistic.kind == "aten::amax") {
        if (statistic.kind != "aten::amax" && !constantAt(3).is_null())
            return std::nullopt;
        recipe.reduction = statistic.kind == "aten::amax" ? "max" : statistic.kind.substr(6);
    } else if (statistic.kind == "aten::norm" || statistic.kind == "aten::linalg_vector_norm") {
        // norm(x, p, dim, keepdim) and linalg_vector_norm(x, ord, dim, keepdim, dtype): p 1, 2 or infinity.
        if (!constantAt(4).is_null()) // a dtype
            return std::nullopt;
        const double p = constantAt(1).is_null() ? 2.0 : number(constantAt(1)).value_or(0);
        const std::string magnitude = "fabsf(" + prologue + ")";
        if (p == 2.0) {
            prologue = "(" + wrap(prologue) + " * " + wrap(prologue) + ")";
            recipe.reduction = "sum";
            epilogue = "sqrtf(acc)";
        } else if (p == 1.0 || std::isinf(p)) {
            prologue = magnitude;
            recipe.reduction = p == 1.0 ? "sum" : "max";
        } else {
            return std::nullopt;
        }
        dimsAt = 2;
    } else {
        return std::nullopt;
    }
    const auto &shape = statistic.inputs[0].tensor.shape;
    const auto dim = integer(constantAt(dimsAt));
    const auto rank = std::int64_t(shape.size());
    if (!dim || *dim < -rank || *dim >= rank || constantAt(dimsAt + 1) != true)
        return std::nullopt;
    const auto dimension = std::size_t(*dim < 0 ? *dim + rank : *dim);
    if (!std::all_of(shape.begin() + std::ptrdiff_t(dimension) + 1, shape.end(), [](auto size) { return size == 1; }))
        return std::nullopt; // over a middle dimension: no normalize template takes it
    previous = statistic.outputs.empty() ? std::string() : statistic.outputs[0].value;
    for (std::size_t i = r + 1; i + 1 < n.size(); ++i) {
        auto next = step(*n[i], epilogue);
        if (!next)
            return std::nullopt;
        epilogue = *next;
    }
    if (!readsPrevious(division.inputs[1]))
        return std::nullopt;
    const TensorSpec &x = m_op.inputs.front();
    if (!seenAsDeclared(shape, x, m_op.shapeSets) || !seenAsDeclared(division.inputs[0].tensor.shape, x, m_op.shapeSets))
        return std::nullopt;
    recipe.prologue = prologue == "v" ? std::string() : prologue;
    recipe.expression = epilogue == "acc" ? std::string() : epilogue;
    if (auto status = rowSymbols(x, dimension, recipe); !status)
        return Expected<Op>(status.error());
    return finish(recipe, 1e-4, 1e-3);
}

std::optional<Expected<Op>> Translation::rmsNorm()
{
    // x * rsqrt(mean(x^2, d, keepdim) + eps) [* weight], or x / sqrt(...) [* weight]. Over the last dimension it
    // needs the weight (the row templates take one); over a middle dimension the weight is optional.
    if (m_nodes.size() != 5 && m_nodes.size() != 6)
        return std::nullopt;
    const bool weighted = m_nodes.size() == 6;
    const auto &n = m_nodes;
    const auto out = [&](std::size_t i) { return n[i]->outputs.empty() ? std::string() : n[i]->outputs[0].value; };
    const auto reads = [&](std::size_t i, std::size_t arg, const std::string &value) {
        return arg < n[i]->inputs.size() && n[i]->inputs[arg].isTensor
               && canonical(n[i]->inputs[arg].tensor.value) == value;
    };
    const auto readsInput = [&](std::size_t i, std::size_t arg, int input) {
        return arg < n[i]->inputs.size() && inputIndex(n[i]->inputs[arg]) == input;
    };
    const bool squared = (n[0]->kind == "aten::pow" && readsInput(0, 0, 0) && n[0]->inputs.size() > 1
                          && number(n[0]->inputs[1].constant).value_or(0) == 2.0)
                         || (n[0]->kind == "aten::mul" && readsInput(0, 0, 0) && readsInput(0, 1, 0));
    if (!squared || n[1]->kind != "aten::mean" || !reads(1, 0, out(0)) || n[2]->kind != "aten::add"
        || !reads(2, 0, out(1)) || n[2]->inputs.size() < 2 || n[2]->inputs[1].isTensor)
        return std::nullopt;
    const bool rsqrt =
        n[3]->kind == "aten::rsqrt" && n[4]->kind == "aten::mul"
        && ((readsInput(4, 0, 0) && reads(4, 1, out(3))) || (reads(4, 0, out(3)) && readsInput(4, 1, 0)));
    const bool sqrt =
        n[3]->kind == "aten::sqrt" && n[4]->kind == "aten::div" && readsInput(4, 0, 0) && reads(4, 1, out(3));
    if (!reads(3, 0, out(2)) || !(rsqrt || sqrt))
        return std::nullopt;
    if (weighted
        && (n[5]->kind != "aten::mul"
            || !((reads(5, 0, out(4)) && readsInput(5, 1, 1)) || (readsInput(5, 0, 1) && reads(5, 1, out(4))))))
        return std::nullopt;
    if (canonical(m_graph.outputs.front()) != out(weighted ? 5 : 4))
        return std::nullopt;
    if (n[1]->inputs.size() < 3 || n[1]->inputs[2].constant != true)
        return std::nullopt;
    const auto &shape = n[1]->inputs.front().tensor.shape;
    const auto dim = integer(n[1]->inputs[1].constant);
    const auto rank = std::int64_t(shape.size());
    if (!dim || *dim < -rank || *dim >= rank)
        return std::nullopt;
    const auto dimension = std::size_t(*dim < 0 ? *dim + rank : *dim);
    const bool last =
        std::all_of(shape.begin() + std::ptrdiff_t(dimension) + 1, shape.end(), [](auto size) { return size == 1; });
    if (last && !weighted)
        return std::nullopt; // The pipeline fuses it.
    if (m_op.inputs.size() != (weighted ? 2u : 1u))
        return Expected<Op>(Error{"RMSNorm with inputs besides x and weight"});
    OpRecipe recipe;
    recipe.family = "norm";
    recipe.reduction = "rmsnorm";
    recipe.eps = number(n[2]->inputs[1].constant).value_or(1e-5);
    const TensorSpec &x = m_op.inputs.front();
    if (auto status = rowSymbols(x, dimension, recipe); !status)
        return Expected<Op>(status.error());
    if (!last) {
        const std::vector<std::string> after(x.shape.begin() + std::ptrdiff_t(dimension) + 1, x.shape.end());
        if (auto status = derivedSymbol("I", after, recipe.inner); !status)
            return Expected<Op>(status.error());
    }
    return finish(recipe, 1e-4, 1e-3);
}

} // namespace kx::translation
