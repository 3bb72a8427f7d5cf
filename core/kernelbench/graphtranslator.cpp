#include "core/kernelbench/graphtranslator.h"

#include "core/codegen/oprecipe.h"
#include "core/kernelbench/atencalls.h"
#include "core/kernelbench/pipelinetranslator.h"
#include "core/kernelbench/windowcalls.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace kx {
namespace {

using namespace atencalls;

constexpr std::size_t kMaxExpressionLength = 16 * 1024;

std::string shapeText(const std::vector<std::int64_t> &shape)
{
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
}

// Drops leading size-1 dimensions (they do not change how an operand broadcasts).
std::vector<std::int64_t> withoutLeadingOnes(std::vector<std::int64_t> shape)
{
    while (!shape.empty() && shape.front() == 1)
        shape.erase(shape.begin());
    return shape;
}

// How an op input takes part in the expression of the value being computed.
enum class Broadcast { Full, Trailing, PerChannel, Other };

Broadcast broadcastOf(const std::vector<std::int64_t> &input, const std::vector<std::int64_t> &output)
{
    const auto in = withoutLeadingOnes(input);
    if (in == withoutLeadingOnes(output))
        return Broadcast::Full;
    if (in.size() <= output.size() && std::equal(in.rbegin(), in.rend(), output.rbegin()))
        return Broadcast::Trailing;
    // [C, 1, 1] against [B, C, H, W]: one value per channel.
    if (output.size() == 4 && in.size() == 3 && in[0] == output[1] && in[1] == 1 && in[2] == 1)
        return Broadcast::PerChannel;
    return Broadcast::Other;
}

/// Symbolic names of concrete sizes: a size that exactly one symbol of the first shape set has.
class SymbolNames
{
public:
    explicit SymbolNames(const Op &op)
    {
        if (op.shapeSets.empty())
            return;
        std::map<std::int64_t, int> counts;
        for (const auto &[symbol, value] : op.shapeSets.front())
            ++counts[value];
        for (const auto &[symbol, value] : op.shapeSets.front())
            if (counts[value] == 1)
                m_names[value] = symbol;
    }
    std::string operator()(std::int64_t size) const
    {
        const auto it = m_names.find(size);
        return it == m_names.end() ? std::to_string(size) : it->second;
    }
    std::string product(const std::vector<std::int64_t> &shape) const
    {
        std::string text;
        for (const auto size : shape)
            if (size != 1)
                text += (text.empty() ? "" : " * ") + (*this)(size);
        return text.empty() ? "1" : text;
    }

private:
    std::map<std::int64_t, std::string> m_names;
};


bool isDigits(const std::string &text)
{
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string join(const std::vector<std::string> &items, const std::string &separator)
{
    std::string text;
    for (const auto &item : items)
        text += (text.empty() ? "" : separator) + item;
    return text;
}

// Turns one graph into one recipe; every method returns an Error that says what does not fit.
class Translation
{
public:
    Translation(const OpGraph &graph, Op op) : m_graph(graph), m_op(std::move(op)), m_symbols(m_op) {}

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
    Expected<Op> gemm();
    Expected<Op> conv();
    Expected<Op> rows();
    std::optional<Expected<Op>> rmsNorm();
    Expected<Op> transpose();
    Status rowSymbols(const TensorSpec &input, std::size_t dimension, OpRecipe &recipe);
    Status derivedSymbol(const std::string &preferred, const std::vector<std::string> &dimensions, std::string &symbol);
    Expected<std::size_t> lastDimension(const GraphNode &node, const nlohmann::json &dims) const;
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
};

Expected<Op> Translation::run()
{
    if (m_graph.outputs.size() != 1 || m_op.outputs.size() != 1)
        return Error{"the model returns " + std::to_string(m_graph.outputs.size())
                     + " outputs: the templates generate one"};
    if (const auto unsupported = GraphTranslator::unsupportedCalls(m_graph); !unsupported.empty())
        return Error{"unsupported calls: " + join(unsupported, ", ")};
    for (const auto &input : m_graph.inputs) {
        const auto it = std::find_if(m_op.inputs.begin(), m_op.inputs.end(),
                                     [&](const TensorSpec &t) { return t.name == input.name; });
        if (it == m_op.inputs.end())
            return Error{"the graph input " + input.name + " is not an input of the op"};
        m_inputs[input.value] = int(it - m_op.inputs.begin());
    }
    for (const auto &node : m_graph.nodes) {
        if (isView(node.kind) && !node.inputs.empty() && node.inputs[0].isTensor && node.outputs.size() == 1) {
            m_alias[node.outputs[0].value] = canonical(node.inputs[0].tensor.value);
            continue;
        }
        m_nodes.push_back(&node);
    }
    if (m_nodes.empty())
        return Error{"the model computes nothing (it returns a view of an input)"};
    const std::string result = canonical(m_graph.outputs.front());
    for (const auto *node : m_nodes)
        for (const auto &output : node->outputs)
            if (output.value == result)
                m_outputShape = output.shape;
    if (m_outputShape.empty() && m_inputs.count(result))
        return Error{"the model returns one of its inputs"};

    if (auto norm = rmsNorm())
        return std::move(*norm);
    std::vector<std::string> anchors;
    std::size_t anchorIndex = 0;
    for (std::size_t i = 0; i < m_nodes.size(); ++i) {
        if (!isElementwise(m_nodes[i]->kind)) {
            if (anchors.empty())
                anchorIndex = i;
            anchors.push_back(m_nodes[i]->kind);
        }
    }
    if (anchors.empty())
        return elementwise();
    if (anchors.size() > 1)
        return Error{"more than one call that is not elementwise (" + join(anchors, ", ")
                     + "): the templates generate one, followed by an elementwise epilogue"};
    if (anchorIndex != 0)
        return Error{"elementwise calls before " + anchors.front() + " cannot be fused into it"};
    const auto &kind = anchors.front();
    if (kind == "aten::linear" || kind == "aten::matmul" || kind == "aten::mm" || kind == "aten::addmm")
        return gemm();
    if (kind == "aten::conv2d" || kind == "aten::_convolution")
        return conv();
    if (windowcalls::isWindowCall(kind))
        return Error{kind + ": the conv-epilogue template takes conv2d with an epilogue only"};
    if (kind == "aten::t" || kind == "aten::transpose" || kind == "aten::permute")
        return transpose();
    return rows();
}

Expected<std::string> Translation::chain(std::size_t first, const std::string &startValue,
                                         const std::string &startExpression, const InputOperand &inputOperand)
{
    std::map<std::string, std::string> expressions;
    std::string last = startValue;
    if (!startValue.empty())
        expressions[startValue] = startExpression;
    for (std::size_t k = first; k < m_nodes.size(); ++k) {
        const GraphNode &node = *m_nodes[k];
        if (node.outputs.size() != 1 || withoutLeadingOnes(node.outputs[0].shape) != withoutLeadingOnes(m_outputShape))
            return Error{node.kind + " computes " + (node.outputs.empty() ? "nothing" : shapeText(node.outputs[0].shape))
                         + ", not the output's shape " + shapeText(m_outputShape)};
        const auto operand = [&](std::size_t i) -> Expected<std::string> {
            const auto &argument = node.inputs[i];
            if (!argument.isTensor) {
                const auto value = number(argument.constant);
                if (!value)
                    return Error{node.kind + " has an argument that is not a number"};
                return floatLiteral(*value);
            }
            const std::string value = canonical(argument.tensor.value);
            if (const auto it = expressions.find(value); it != expressions.end())
                return it->second;
            if (const auto it = m_inputs.find(value); it != m_inputs.end())
                return inputOperand(it->second, argument.tensor.shape);
            return Error{node.kind + " reads a value computed outside its elementwise chain"};
        };
        auto expression = elementwiseExpression(node, operand);
        if (!expression)
            return expression.error();
        if (expression->size() > kMaxExpressionLength)
            return Error{"the fused elementwise expression grows past " + std::to_string(kMaxExpressionLength)
                         + " characters"};
        last = node.outputs[0].value;
        expressions[last] = std::move(*expression);
    }
    if (last != canonical(m_graph.outputs.front()))
        return Error{"the model returns a value other than the result of its last call"};
    return expressions[last];
}

Expected<Op> Translation::elementwise()
{
    const auto &output = m_op.outputs.front();
    const auto operand = [&](int index, const std::vector<std::int64_t> &shape) -> Expected<std::string> {
        const auto &spec = m_op.inputs[std::size_t(index)];
        const auto broadcast = broadcastOf(shape, m_outputShape);
        if (broadcast == Broadcast::Full)
            return spec.name;
        if (broadcast == Broadcast::Trailing && spec.shape.size() <= output.shape.size()
            && std::equal(spec.shape.rbegin(), spec.shape.rend(), output.shape.rbegin()))
            return spec.name;
        return Error{"input " + spec.name + " " + shapeText(shape) + " broadcasts to " + shapeText(m_outputShape)
                     + " over inner dimensions: the elementwise template broadcasts trailing dimensions only"};
    };
    auto expression = chain(0, {}, {}, operand);
    if (!expression)
        return expression.error();
    OpRecipe recipe;
    recipe.family = "elementwise";
    recipe.expression = *expression;
    return finish(recipe, 1e-4, 1e-4);
}

Expected<Op> Translation::gemm()
{
    const GraphNode &node = *m_nodes.front();
    const bool linear = node.kind == "aten::linear", addmm = node.kind == "aten::addmm";
    const std::size_t aArg = addmm ? 1 : 0, bArg = addmm ? 2 : 1;
    const auto *a = argument(node, aArg);
    const auto *b = argument(node, bArg);
    const auto *biasArgument = linear ? argument(node, 2) : addmm ? argument(node, 0) : nullptr;
    if (!a || !b || !a->isTensor || !b->isTensor)
        return Error{node.kind + " without two tensor operands"};
    const auto factor = [&](std::size_t i) {
        return i < node.inputs.size() ? number(node.inputs[i].constant).value_or(0) : 1.0;
    };
    if (addmm && (factor(3) != 1.0 || factor(4) != 1.0))
        return Error{"aten::addmm with beta or alpha other than 1"};
    const int ia = inputIndex(*a), ib = inputIndex(*b);
    if (ia < 0 || ib < 0)
        return Error{node.kind + " of a computed value: the gemm template reads its operands from the inputs"};
    if (a->tensor.shape.size() != 2 || b->tensor.shape.size() != 2)
        return Error{node.kind + " of " + shapeText(a->tensor.shape) + " and " + shapeText(b->tensor.shape)
                     + ": the gemm template multiplies 2-D matrices (batched products are not supported)"};
    const auto &specA = m_op.inputs[std::size_t(ia)];
    const auto &specB = m_op.inputs[std::size_t(ib)];
    if (specA.shape.size() != 2 || specB.shape.size() != 2)
        return Error{node.kind + " of reshaped inputs: the gemm template reads the inputs as they are declared"};
    OpRecipe recipe;
    recipe.family = "gemm";
    recipe.transposeB = linear;
    recipe.m = specA.shape[0];
    recipe.k = specA.shape[1];
    recipe.n = linear ? specB.shape[0] : specB.shape[1];
    if ((linear ? specB.shape[1] : specB.shape[0]) != recipe.k)
        return Error{node.kind + ": the inner dimensions of " + specA.name + " and " + specB.name + " differ"};
    std::set<int> used{ia, ib};
    if (biasArgument && biasArgument->isTensor) {
        const int index = inputIndex(*biasArgument);
        if (index < 0 || m_op.inputs[std::size_t(index)].shape != std::vector<std::string>{recipe.n})
            return Error{node.kind + " with a bias that is not a [" + recipe.n + "] input"};
        recipe.bias = m_op.inputs[std::size_t(index)].name;
        used.insert(index);
    }
    const auto &outputSpec = m_op.outputs.front();
    const auto operand = [&](int index, const std::vector<std::int64_t> &shape) -> Expected<std::string> {
        const auto &spec = m_op.inputs[std::size_t(index)];
        if (broadcastOf(shape, m_outputShape) != Broadcast::Full || spec.shape != outputSpec.shape)
            return Error{"input " + spec.name + " " + shapeText(shape) + " in the epilogue of " + node.kind
                         + ": a gemm epilogue reads only inputs of the output's shape"};
        if (used.insert(index).second)
            recipe.epilogueInputs.push_back(spec.name);
        return spec.name;
    };
    auto expression = chain(1, node.outputs.front().value, "acc", operand);
    if (!expression)
        return expression.error();
    recipe.expression = *expression;
    for (std::size_t i = 0; i < m_op.inputs.size(); ++i)
        if (!used.count(int(i)))
            return Error{"input " + m_op.inputs[i].name + " is not used by " + node.kind + " or its epilogue"};
    if (ia > ib)
        return Error{"the operands of " + node.kind + " are declared in the other order ("
                     + specB.name + " before " + specA.name + ")"};
    const auto k = a->tensor.shape[1];
    return finish(recipe, atencalls::summationAtol(k), k >= 1024 ? 1e-2 : 1e-3);
}

Expected<Op> Translation::conv()
{
    const GraphNode &node = *m_nodes.front();
    const bool internal = node.kind == "aten::_convolution";
    const auto constantAt = [&](std::size_t i) {
        return i < node.inputs.size() ? node.inputs[i].constant : nlohmann::json();
    };
    const bool transposed = internal && constantAt(6).is_boolean() && constantAt(6).get<bool>();
    // Alone, a convolution is generated whole (a pipeline conv stage) rather than left to the library.
    if (m_nodes.size() == 1)
        return Error{"a lone " + node.kind + " has no epilogue for the conv-epilogue template"};
    const auto groups = integer(constantAt(internal ? 8 : 6));
    if (!allEqual(constantAt(3), 1) || !allEqual(constantAt(4), 0) || !allEqual(constantAt(5), 1) || transposed
        || !groups || *groups != 1)
        return Error{node.kind + " with stride, padding, dilation or groups other than 1, 0, 1, 1: the "
                     "conv-epilogue template's library step runs conv2d(x, weight)"};
    const auto *x = argument(node, 0);
    const auto *weight = argument(node, 1);
    const int ix = x ? inputIndex(*x) : -1, iw = weight ? inputIndex(*weight) : -1;
    if (ix < 0 || iw < 0)
        return Error{node.kind + " of a computed value: the conv-epilogue template reads x and weight from the inputs"};
    if (x->tensor.shape.size() != 4 || weight->tensor.shape.size() != 4)
        return Error{node.kind + " on " + shapeText(x->tensor.shape) + ": only 2-D convolutions of 4-D inputs"};
    std::string bias;
    std::string start = "acc";
    int biasIndex = -1;
    if (const auto *convBias = argument(node, 2); convBias && convBias->isTensor) {
        biasIndex = inputIndex(*convBias);
        if (biasIndex < 0 || m_op.inputs[std::size_t(biasIndex)].shape.size() != 1)
            return Error{node.kind + " with a bias that is not a 1-D input"};
        bias = m_op.inputs[std::size_t(biasIndex)].name;
        start = "(acc + " + bias + "[c])";
    }
    const auto operand = [&](int index, const std::vector<std::int64_t> &shape) -> Expected<std::string> {
        const auto &spec = m_op.inputs[std::size_t(index)];
        if (broadcastOf(shape, m_outputShape) != Broadcast::PerChannel || spec.shape.size() != 1)
            return Error{"input " + spec.name + " " + shapeText(shape) + " in the epilogue of " + node.kind
                         + ": a conv epilogue reads only one per-channel [C_out, 1, 1] tensor"};
        if (!bias.empty() && bias != spec.name)
            return Error{node.kind + " with two per-channel tensors (" + bias + ", " + spec.name
                         + "): the conv-epilogue template reads one"};
        bias = spec.name;
        biasIndex = index;
        return spec.name + "[c]";
    };
    auto expression = chain(1, node.outputs.front().value, start, operand);
    if (!expression)
        return expression.error();
    const std::size_t expected = bias.empty() ? 2 : 3;
    if (m_op.inputs.size() != expected || ix != 0 || iw != 1 || (biasIndex >= 0 && biasIndex != 2))
        return Error{"the conv-epilogue template needs the inputs x, weight" + std::string(bias.empty() ? "" : ", bias")
                     + " in that order and no others"};
    OpRecipe recipe;
    recipe.family = "conv-epilogue";
    recipe.expression = *expression;
    recipe.bias = bias;
    m_op.policy.allowLibrarySteps = true;
    m_op.policy.allowedLibraryOps = {"aten::conv2d"};
    const auto &w = weight->tensor.shape;
    const auto k = w[1] * w[2] * w[3];
    return finish(recipe, atencalls::summationAtol(k), k >= 1024 ? 1e-2 : 1e-3);
}

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
        return Error{node.kind + " over dimension " + std::to_string(*dim) + " of a " + std::to_string(rank) + "-D input"};
    for (std::int64_t i = d + 1; i < rank; ++i)
        if (shape[std::size_t(i)] != 1)
            return Error{node.kind + " over dimension " + std::to_string(*dim) + " of " + shapeText(shape)
                         + ": the templates work over the last dimension"};
    return std::size_t(d);
}

Status Translation::derivedSymbol(const std::string &preferred, const std::vector<std::string> &dimensions,
                                  std::string &symbol)
{
    if (dimensions.size() == 1 && !isDigits(dimensions.front())) {
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
        set[symbol] = value;
    }
    return {};
}

Status Translation::rowSymbols(const TensorSpec &input, std::size_t dimension, OpRecipe &recipe)
{
    if (input.shape.size() <= dimension)
        return Error{"input " + input.name + " is declared with fewer dimensions than the graph uses"};
    const std::vector<std::string> leading(input.shape.begin(), input.shape.begin() + std::ptrdiff_t(dimension));
    if (auto status = derivedSymbol("R", leading.empty() ? std::vector<std::string>{"1"} : leading, recipe.rows); !status)
        return status;
    return derivedSymbol("C", {input.shape[dimension]}, recipe.cols);
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
    if (reduceKinds().count(node.kind)) {
        recipe.family = "reduce";
        recipe.reduction = node.kind == "aten::amax" || node.kind == "aten::max" ? "max" : node.kind.substr(6);
        if ((node.kind == "aten::sum" || node.kind == "aten::mean") && !constantAt(3).is_null())
            return Error{node.kind + " with a dtype"};
        if (node.kind == "aten::max" && (node.outputs.size() != 2 || node.outputs[0].value != canonical(m_graph.outputs[0])))
            return Error{"aten::max returning its indices: use argmax"};
        atol = 1e-2;
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
        const auto normalized = integers(constantAt(1));
        const auto &shape = node.inputs.front().tensor.shape;
        if (!normalized || normalized->size() != 1 || shape.empty() || normalized->front() != shape.back())
            return Error{"aten::layer_norm over more than the last dimension"};
        const auto *weight = argument(node, 2);
        const auto *bias = argument(node, 3);
        if (!weight || !bias || inputIndex(*weight) != 1 || inputIndex(*bias) != 2)
            return Error{"aten::layer_norm without weight and bias inputs (the norm template needs x, weight, bias)"};
        recipe.eps = number(constantAt(4)).value_or(1e-5);
        inputs = 3;
    } else {
        return Error{node.kind + " is not supported here"};
    }
    auto dimension = lastDimension(node, recipe.family == "norm"
                                             ? nlohmann::json(std::int64_t(node.inputs.front().tensor.shape.size()) - 1)
                                             : constantAt(1));
    if (!dimension)
        return dimension.error();
    if (m_op.inputs.size() != inputs)
        return Error{"the op has inputs that " + node.kind + " does not use"};
    if (auto status = rowSymbols(x, *dimension, recipe); !status)
        return status.error();
    return finish(recipe, atol, rtol);
}

std::optional<Expected<Op>> Translation::rmsNorm()
{
    // x * rsqrt(mean(x^2, -1, keepdim) + eps) * weight, or x / sqrt(...) * weight.
    if (m_nodes.size() != 6)
        return std::nullopt;
    const auto &n = m_nodes;
    const auto out = [&](std::size_t i) { return n[i]->outputs.empty() ? std::string() : n[i]->outputs[0].value; };
    const auto reads = [&](std::size_t i, std::size_t arg, const std::string &value) {
        return arg < n[i]->inputs.size() && n[i]->inputs[arg].isTensor && canonical(n[i]->inputs[arg].tensor.value) == value;
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
    const bool rsqrt = n[3]->kind == "aten::rsqrt" && n[4]->kind == "aten::mul"
                       && ((readsInput(4, 0, 0) && reads(4, 1, out(3))) || (reads(4, 0, out(3)) && readsInput(4, 1, 0)));
    const bool sqrt = n[3]->kind == "aten::sqrt" && n[4]->kind == "aten::div" && readsInput(4, 0, 0) && reads(4, 1, out(3));
    if (!reads(3, 0, out(2)) || !(rsqrt || sqrt) || n[5]->kind != "aten::mul"
        || !((reads(5, 0, out(4)) && readsInput(5, 1, 1)) || (readsInput(5, 0, 1) && reads(5, 1, out(4)))))
        return std::nullopt;
    if (canonical(m_graph.outputs.front()) != out(5))
        return std::nullopt;
    auto dimension = lastDimension(*n[1], n[1]->inputs.size() > 1 ? n[1]->inputs[1].constant : nlohmann::json());
    if (!dimension || n[1]->inputs.size() < 3 || n[1]->inputs[2].constant != true)
        return std::nullopt;
    if (*dimension + 1 != n[1]->inputs.front().tensor.shape.size())
        return std::nullopt;
    if (m_op.inputs.size() != 2)
        return Expected<Op>(Error{"RMSNorm with inputs besides x and weight"});
    OpRecipe recipe;
    recipe.family = "norm";
    recipe.reduction = "rmsnorm";
    recipe.eps = number(n[2]->inputs[1].constant).value_or(1e-5);
    if (auto status = rowSymbols(m_op.inputs.front(), *dimension, recipe); !status)
        return Expected<Op>(status.error());
    return finish(recipe, 1e-4, 1e-3);
}

Expected<Op> Translation::transpose()
{
    const GraphNode &node = *m_nodes.front();
    if (m_nodes.size() > 1)
        return Error{node.kind + " followed by " + m_nodes[1]->kind + ": the transpose template fuses nothing"};
    if (node.inputs.empty() || !node.inputs.front().isTensor)
        return Error{node.kind + " without a tensor to transpose"};
    const auto &shape = node.inputs.front().tensor.shape;
    bool swaps = shape.size() == 2;
    if (node.kind == "aten::transpose") {
        const auto d0 = integer(node.inputs.size() > 1 ? node.inputs[1].constant : nlohmann::json());
        const auto d1 = integer(node.inputs.size() > 2 ? node.inputs[2].constant : nlohmann::json());
        swaps = swaps && d0 && d1 && ((*d0 + 2) % 2) != ((*d1 + 2) % 2);
    } else if (node.kind == "aten::permute") {
        const auto order = integers(node.inputs.size() > 1 ? node.inputs[1].constant : nlohmann::json());
        swaps = swaps && order && (*order == std::vector<std::int64_t>{1, 0} || *order == std::vector<std::int64_t>{-1, -2});
    }
    if (!swaps)
        return Error{node.kind + " of " + shapeText(shape) + ": the transpose template swaps the two dimensions of a matrix"};
    if (inputIndex(node.inputs.front()) != 0 || m_op.inputs.size() != 1 || m_op.inputs.front().shape.size() != 2)
        return Error{node.kind + " of something other than the op's only (2-D) input"};
    OpRecipe recipe;
    recipe.family = "transpose";
    recipe.rows = m_op.inputs.front().shape[0];
    recipe.cols = m_op.inputs.front().shape[1];
    return finish(recipe, 0, 0);
}

int dtypeBytes(const std::string &dtype)
{
    if (dtype == "float64" || dtype == "int64")
        return 8;
    if (dtype == "float16" || dtype == "bfloat16" || dtype == "int16")
        return 2;
    if (dtype == "bool" || dtype == "int8" || dtype == "uint8")
        return 1;
    return 4;
}

} // namespace

Expected<Op> GraphTranslator::translate(const OpGraph &graph, Op op) const
{
    auto single = Translation(graph, op).run();
    if (single)
        return single;
    auto pipeline = PipelineTranslator::translate(graph, std::move(op));
    if (pipeline)
        return pipeline;
    return Error{single.error().message + "; as a pipeline: " + pipeline.error().message};
}

bool GraphTranslator::knowsKind(const std::string &kind)
{
    return isView(kind) || isElementwise(kind) || reduceKinds().count(kind) || anchorKinds().count(kind)
           || windowcalls::isWindowCall(kind);
}

std::vector<std::string> GraphTranslator::unsupportedCalls(const OpGraph &graph)
{
    std::vector<std::string> calls;
    const auto add = [&](const std::string &call) {
        if (std::find(calls.begin(), calls.end(), call) == calls.end())
            calls.push_back(call);
    };
    for (const auto &node : graph.nodes) {
        if (!knowsKind(node.kind)) {
            add(node.kind);
            continue;
        }
        // Known calls on other element types than float32 (index outputs of argmax and max aside).
        for (const auto &argument : node.inputs)
            if (argument.isTensor && argument.tensor.dtype != "float32")
                add(node.kind + " on " + argument.tensor.dtype);
        for (std::size_t i = 0; i < node.outputs.size(); ++i) {
            const bool indices = node.kind == "aten::argmax" || (node.kind == "aten::max" && i == 1);
            const auto &dtype = node.outputs[i].dtype;
            if (dtype != "float32" && dtype != "none" && !(indices && dtype == "int64"))
                add(node.kind + " producing " + dtype);
        }
    }
    return calls;
}

std::string graphFlopsExpression(const OpGraph &graph, const Op &op)
{
    const SymbolNames symbols(op);
    std::vector<std::string> terms;
    const auto term = [&](std::int64_t factor, const std::vector<std::int64_t> &shape) {
        const std::string product = symbols.product(shape);
        terms.push_back(factor == 1 ? product : std::to_string(factor) + " * " + product);
    };
    for (const auto &node : graph.nodes) {
        const auto &kind = node.kind;
        const auto inputShape = [&](std::size_t i) {
            return i < node.inputs.size() && node.inputs[i].isTensor ? node.inputs[i].tensor.shape
                                                                     : std::vector<std::int64_t>{};
        };
        const auto outputShape = node.outputs.empty() ? std::vector<std::int64_t>{} : node.outputs[0].shape;
        if (isView(kind) || kind == "aten::t" || kind == "aten::transpose" || kind == "aten::permute")
            continue;
        if (const auto it = elementwiseKinds().find(kind); it != elementwiseKinds().end()) {
            term(it->second, outputShape);
        } else if (kind == "aten::linear" || kind == "aten::matmul" || kind == "aten::mm" || kind == "aten::addmm") {
            const auto a = inputShape(kind == "aten::addmm" ? 1 : 0);
            if (a.empty())
                return "0";
            auto shape = outputShape;
            shape.push_back(a.back());
            term(2, shape);
            if ((kind == "aten::linear" && node.inputs.size() > 2 && node.inputs[2].isTensor) || kind == "aten::addmm")
                term(1, outputShape);
        } else if (windowcalls::isConvolution(kind)) {
            const auto call = windowcalls::windowCallOf(node);
            const auto weight = inputShape(1);
            if (!call || weight.size() < 3)
                return "0";
            // Forward: every output sums C_in / groups x taps products; transposed: every input spreads to
            // C_out / groups x taps outputs.
            auto shape = call->window.transposed ? inputShape(0) : outputShape;
            shape.insert(shape.end(), weight.begin() + 1, weight.end());
            term(2, shape);
        } else if (windowcalls::isWindowCall(kind)) {
            const auto call = windowcalls::windowCallOf(node);
            if (!call)
                return "0";
            auto shape = outputShape;
            shape.insert(shape.end(), call->window.kernel.begin(), call->window.kernel.end());
            term(1, shape);
        } else if (reduceKinds().count(kind)) {
            term(1, inputShape(0));
        } else if (kind.find("softmax") != std::string::npos) {
            term(5, inputShape(0));
        } else if (kind == "aten::layer_norm") {
            term(8, inputShape(0));
        } else {
            return "0";
        }
    }
    return terms.empty() ? "0" : join(terms, " + ");
}

std::string bytesMovedExpression(const Op &op)
{
    std::vector<std::string> terms;
    for (const auto *tensors : {&op.inputs, &op.outputs}) {
        for (const auto &tensor : *tensors) {
            std::string term = std::to_string(dtypeBytes(tensor.dtype));
            for (const auto &dimension : tensor.shape)
                if (dimension != "1")
                    term += " * " + dimension;
            terms.push_back(term);
        }
    }
    return terms.empty() ? "0" : join(terms, " + ");
}

} // namespace kx
