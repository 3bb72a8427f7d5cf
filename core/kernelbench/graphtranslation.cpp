#include "core/kernelbench/graphtranslation.h"

#include "core/kernelbench/atencalls.h"
#include "core/kernelbench/graphtranslator.h"
#include "core/kernelbench/windowcalls.h"

#include <algorithm>
#include <set>

namespace kx::translation {

using namespace atencalls;

namespace {
constexpr std::size_t kMaxExpressionLength = 16 * 1024;
} // namespace

std::string shapeText(const std::vector<std::int64_t> &shape)
{
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
}

std::vector<std::int64_t> withoutLeadingOnes(std::vector<std::int64_t> shape)
{
    while (!shape.empty() && shape.front() == 1)
        shape.erase(shape.begin());
    return shape;
}

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
    // [N, 1] against [N, M]: the output's leading dimensions, then ones.
    if (input.size() == output.size()) {
        std::size_t leading = 0;
        while (leading < input.size() && input[leading] == output[leading])
            ++leading;
        if (leading > 0 && leading < input.size()
            && std::all_of(input.begin() + std::ptrdiff_t(leading), input.end(), [](std::int64_t d) { return d == 1; }))
            return Broadcast::Rows;
    }
    return Broadcast::Other;
}

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
    foldProductViews();
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
    if (auto normalized = normalization())
        return std::move(*normalized);
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
    if (kind == "aten::linear" || kind == "aten::matmul" || kind == "aten::mm" || kind == "aten::addmm"
        || kind == "aten::bmm" || kind == "aten::einsum")
        return gemm();
    if (kind == "aten::conv2d" || kind == "aten::_convolution")
        return conv();
    if (kind == "aten::scaled_dot_product_attention")
        return attention();
    if (windowcalls::isWindowCall(kind))
        return Error{kind + ": the conv-epilogue template takes conv2d with an epilogue only"};
    if (kind == "aten::t" || kind == "aten::numpy_T" || kind == "aten::transpose" || kind == "aten::permute")
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
            return Error{node.kind + " computes "
                         + (node.outputs.empty() ? "nothing" : shapeText(node.outputs[0].shape))
                         + ", not the output's shape " + shapeText(m_outputShape)};
        const auto operand = [&](std::size_t i) -> Expected<std::string> {
            const auto &argument = node.inputs[i];
            if (!argument.isTensor)
                return numberLiteral(node, argument);
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

Expected<std::string> Translation::elementwiseOperand(int index, const std::vector<std::int64_t> &shape,
                                                      OpRecipe &recipe)
{
    const auto &output = m_op.outputs.front();
    const auto &spec = m_op.inputs[std::size_t(index)];
    const auto broadcast = broadcastOf(shape, m_outputShape);
    if (broadcast == Broadcast::Full)
        return spec.name;
    if (broadcast == Broadcast::Trailing && spec.shape.size() <= output.shape.size()
        && std::equal(spec.shape.rbegin(), spec.shape.rend(), output.shape.rbegin()))
        return spec.name;
    // One value per row: the input as declared (trailing ones aside) is the output's leading dimensions.
    auto declared = spec.shape;
    while (!declared.empty() && declared.back() == "1")
        declared.pop_back();
    if (broadcast == Broadcast::Rows && !declared.empty() && declared.size() < output.shape.size()
        && std::equal(declared.begin(), declared.end(), output.shape.begin())) {
        if (std::find(recipe.rowInputs.begin(), recipe.rowInputs.end(), spec.name) == recipe.rowInputs.end())
            recipe.rowInputs.push_back(spec.name);
        return spec.name;
    }
    return Error{"input " + spec.name + " " + shapeText(shape) + " broadcasts to " + shapeText(m_outputShape)
                 + " over inner dimensions: the elementwise template broadcasts trailing dimensions and rows only"};
}

Expected<Op> Translation::elementwise()
{
    OpRecipe recipe;
    recipe.family = "elementwise";
    const auto operand = [&](int index, const std::vector<std::int64_t> &shape) {
        return elementwiseOperand(index, shape, recipe);
    };
    auto expression = chain(0, {}, {}, operand);
    if (!expression)
        return expression.error();
    recipe.expression = *expression;
    return finish(recipe, 1e-4, 1e-4);
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
        return Error{node.kind
                     + " with stride, padding, dilation or groups other than 1, 0, 1, 1: the "
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

Expected<Op> Translation::transpose()
{
    const GraphNode &node = *m_nodes.front();
    if (m_nodes.size() > 1)
        return Error{node.kind + " followed by " + m_nodes[1]->kind + ": the transpose template fuses nothing"};
    if (node.inputs.empty() || !node.inputs.front().isTensor)
        return Error{node.kind + " without a tensor to transpose"};
    const auto &shape = node.inputs.front().tensor.shape;
    bool swaps = shape.size() == 2; // t and numpy_T of a matrix
    if (node.kind == "aten::transpose") {
        const auto d0 = integer(node.inputs.size() > 1 ? node.inputs[1].constant : nlohmann::json());
        const auto d1 = integer(node.inputs.size() > 2 ? node.inputs[2].constant : nlohmann::json());
        swaps = swaps && d0 && d1 && ((*d0 + 2) % 2) != ((*d1 + 2) % 2);
    } else if (node.kind == "aten::permute") {
        const auto order = integers(node.inputs.size() > 1 ? node.inputs[1].constant : nlohmann::json());
        swaps = swaps && order
                && (*order == std::vector<std::int64_t>{1, 0} || *order == std::vector<std::int64_t>{-1, -2});
    }
    if (!swaps)
        return Error{node.kind + " of " + shapeText(shape)
                     + ": the transpose template swaps the two dimensions of a matrix"};
    if (inputIndex(node.inputs.front()) != 0 || m_op.inputs.size() != 1 || m_op.inputs.front().shape.size() != 2)
        return Error{node.kind + " of something other than the op's only (2-D) input"};
    OpRecipe recipe;
    recipe.family = "transpose";
    recipe.rows = m_op.inputs.front().shape[0];
    recipe.cols = m_op.inputs.front().shape[1];
    return finish(recipe, 0, 0);
}

} // namespace kx::translation
