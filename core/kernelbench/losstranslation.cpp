#include "core/kernelbench/losstranslation.h"

#include "core/codegen/oprecipe.h"
#include "core/kernelbench/atencalls.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

namespace kx {
namespace {

using namespace atencalls;

const std::set<std::string> &lossKinds()
{
    static const std::set<std::string> kinds{"aten::smooth_l1_loss", "aten::huber_loss", "aten::kl_div",
                                             "aten::cross_entropy_loss", "aten::triplet_margin_loss"};
    return kinds;
}

bool isElementwiseLoss(const std::string &kind)
{
    return kind == "aten::smooth_l1_loss" || kind == "aten::huber_loss" || kind == "aten::kl_div";
}

// torch.mean(x) and torch.sum(x): every element to one scalar, without a dtype.
bool isFullReduction(const GraphNode &node)
{
    return (node.kind == "aten::mean" || node.kind == "aten::sum") && node.outputs.size() == 1
           && node.outputs[0].shape.empty() && !node.inputs.empty() && node.inputs[0].isTensor
           && node.inputs.size() <= 2 && (node.inputs.size() < 2 || node.inputs[1].constant.is_null());
}

// PyTorch's reduction enum as the loss calls take it.
Expected<std::string> reductionOf(const GraphNode &node, std::size_t position)
{
    const auto code = position < node.inputs.size() ? integer(node.inputs[position].constant) : std::nullopt;
    if (code == 1)
        return std::string("mean");
    if (code == 2)
        return std::string("sum");
    if (code == 0)
        return Error{node.kind + " without a reduction is elementwise: the loss template reduces to a scalar"};
    return Error{node.kind + " with a reduction that is not a constant"};
}

std::optional<double> constantAt(const GraphNode &node, std::size_t position)
{
    return position < node.inputs.size() && !node.inputs[position].isTensor ? number(node.inputs[position].constant)
                                                                             : std::nullopt;
}

class LossTranslation
{
public:
    LossTranslation(const OpGraph &graph, Op op)
        : m_graph(graph)
        , m_op(std::move(op))
    {}

    Expected<Op> run();

private:
    std::string canonical(const std::string &value) const
    {
        const auto it = m_alias.find(value);
        return it == m_alias.end() ? value : it->second;
    }
    int inputIndex(const std::string &value) const
    {
        const auto it = m_inputs.find(canonical(value));
        return it == m_inputs.end() ? -1 : it->second;
    }
    std::optional<std::vector<std::int64_t>> declaredShape(int input) const;
    Status unpackBroadcast(const GraphNode &broadcast, const GraphNode &unpack);
    Status addElementwise(const GraphNode &node);
    Expected<std::string> termOperand(const GraphArgument &argument, const std::vector<std::int64_t> &shape);
    Status addLoss(const GraphNode &node);
    Status elementwiseLoss(const GraphNode &node);
    /// An elementwise term over every input, each of the term's shape.
    Status elementwiseTerms(const std::vector<std::int64_t> &shape);
    Status fullReduction(const GraphNode &node);
    Status rowLoss(const GraphNode &node);
    Status divideBySize(const GraphNode &node);

    const OpGraph &m_graph;
    Op m_op;
    OpRecipe m_recipe;
    std::map<std::string, std::string> m_alias;       // views and unpacked operands -> the value they are
    std::map<std::string, int> m_inputs;              // graph input values -> index into m_op.inputs
    std::map<std::string, std::string> m_expressions; // elementwise values before the loss -> CUDA over the inputs
    std::string m_loss;                               // the loss call's value, then its value divided by the batch
    std::vector<std::int64_t> m_lossInput;            // the shape of the loss's first operand
    std::optional<std::int64_t> m_sizeQueried;       // the size aten::size read (prim::NumToTensor makes it a tensor)
    std::int64_t m_terms = 1, m_cols = 1;
};

std::optional<std::vector<std::int64_t>> LossTranslation::declaredShape(int input) const
{
    if (input < 0 || m_op.shapeSets.empty())
        return std::nullopt;
    std::vector<std::int64_t> shape;
    for (const auto &dimension : m_op.inputs[std::size_t(input)].shape) {
        if (!dimension.empty() && std::all_of(dimension.begin(), dimension.end(), ::isdigit))
            shape.push_back(std::stoll(dimension));
        else if (const auto it = m_op.shapeSets.front().find(dimension); it != m_op.shapeSets.front().end())
            shape.push_back(it->second);
        else
            return std::nullopt;
    }
    return shape;
}

// F.smooth_l1_loss broadcasts its operands first; where nothing broadcasts, the unpacked tensors are the operands.
Status LossTranslation::unpackBroadcast(const GraphNode &broadcast, const GraphNode &unpack)
{
    const auto &list = broadcast.inputs.empty() ? nlohmann::json() : broadcast.inputs.front().constant;
    if (!list.is_array() || list.size() != unpack.outputs.size())
        return Error{"aten::broadcast_tensors whose tensors prim::ListUnpack does not take apart one by one"};
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (!list[i].is_object() || !list[i].contains("value") || !list[i]["value"].is_string())
            return Error{"aten::broadcast_tensors of something other than tensors"};
        const std::string value = canonical(list[i]["value"].get<std::string>());
        const auto declared = declaredShape(inputIndex(value));
        if (!declared || *declared != unpack.outputs[i].shape)
            return Error{"the loss's operands broadcast to " + [&] {
                std::string text = "[";
                for (std::size_t d = 0; d < unpack.outputs[i].shape.size(); ++d)
                    text += (d ? ", " : "") + std::to_string(unpack.outputs[i].shape[d]);
                return text + "]";
            }() + ": the loss template reads inputs of the loss's shape"};
        m_alias[unpack.outputs[i].value] = value;
    }
    return {};
}

Expected<std::string> LossTranslation::termOperand(const GraphArgument &argument,
                                                   const std::vector<std::int64_t> &shape)
{
    if (!argument.isTensor)
        return Error{"a loss operand that is not a tensor"};
    const std::string value = canonical(argument.tensor.value);
    if (const auto it = m_expressions.find(value); it != m_expressions.end())
        return it->second;
    const int input = inputIndex(value);
    if (input < 0)
        return Error{"a loss operand computed by something other than elementwise calls of the inputs"};
    // Whole, or repeated along the leading dimensions (an input of the last ones: hinge's targets).
    const auto declared = declaredShape(input);
    const bool trailing = declared && declared->size() <= shape.size()
                          && std::equal(declared->rbegin(), declared->rend(), shape.rbegin());
    if (argument.tensor.dtype != "float32" || !trailing || argument.tensor.shape != *declared)
        return Error{"input " + m_op.inputs[std::size_t(input)].name
                     + " is not a float32 tensor of the loss's shape or of its last dimensions: the loss template "
                       "reads its inputs whole or repeated along the leading dimensions"};
    return m_op.inputs[std::size_t(input)].name;
}

Status LossTranslation::addElementwise(const GraphNode &node)
{
    if (!m_loss.empty())
        return Error{node.kind + " after the loss: the loss template writes the loss itself"};
    const auto &shape = node.outputs.at(0).shape;
    auto expression = elementwiseExpression(node, [&](std::size_t i) -> Expected<std::string> {
        const auto &argument = node.inputs[i];
        if (!argument.isTensor)
            return numberLiteral(node, argument);
        return termOperand(argument, shape);
    });
    if (!expression)
        return expression.error();
    m_expressions[node.outputs[0].value] = *expression;
    return {};
}

Status LossTranslation::elementwiseLoss(const GraphNode &node)
{
    const auto &shape = node.inputs.at(0).tensor.shape;
    if (node.inputs.size() < 3 || !node.inputs[1].isTensor || node.inputs[1].tensor.shape != shape)
        return Error{node.kind + " of operands of different shapes: the loss template reads them at one element"};
    auto input = termOperand(node.inputs[0], shape);
    if (!input)
        return input.error();
    auto target = termOperand(node.inputs[1], shape);
    if (!target)
        return target.error();
    const std::string x = wrap(*input), y = wrap(*target);
    auto reduction = reductionOf(node, 2);
    if (!reduction)
        return reduction.error();
    m_recipe.reduction = *reduction;
    const std::string z = "fabsf(" + x + " - " + y + ")";
    if (node.kind == "aten::kl_div") {
        const auto logTarget = node.inputs.size() > 3 && node.inputs[3].constant == true;
        // xlogy(y, y) - y * x: a zero target adds nothing, whatever x is.
        m_recipe.expression = logTarget ? "expf(" + y + ") * (" + y + " - " + x + ")"
                                        : "(" + y + " == 0.0f ? 0.0f : " + y + " * logf(" + y + ")) - " + y + " * " + x;
    } else {
        const auto beta = constantAt(node, 3);
        if (!beta || *beta < 0)
            return Error{node.kind + " with a " + (node.kind == "aten::huber_loss" ? "delta" : "beta")
                         + " that is not a non-negative number"};
        if (*beta == 0)
            m_recipe.expression = z; // both are the L1 loss then
        else if (node.kind == "aten::smooth_l1_loss")
            m_recipe.expression = "(" + z + " < " + floatLiteral(*beta) + " ? 0.5f * " + z + " * " + z + " / "
                                  + floatLiteral(*beta) + " : " + z + " - " + floatLiteral(0.5 * *beta) + ")";
        else
            m_recipe.expression = "(" + z + " < " + floatLiteral(*beta) + " ? 0.5f * " + z + " * " + z + " : "
                                  + floatLiteral(*beta) + " * (" + z + " - " + floatLiteral(0.5 * *beta) + "))";
    }
    return elementwiseTerms(shape);
}

Status LossTranslation::elementwiseTerms(const std::vector<std::int64_t> &shape)
{
    // Every input is read at the term's element: the first has the loss's shape, the others it or its last
    // dimensions (as declared, so that the template sees them repeat).
    const auto &first = m_op.inputs.front().shape;
    if (declaredShape(0) != shape)
        return Error{"the first input " + m_op.inputs.front().name
                     + " does not have the loss's shape: the loss template counts the terms by it"};
    for (std::size_t i = 0; i < m_op.inputs.size(); ++i) {
        const auto &declared = m_op.inputs[i].shape;
        const bool whole = declared == first;
        const bool repeated = declared.size() < first.size()
                              && std::equal(declared.rbegin(), declared.rend(), first.rbegin());
        if (m_op.inputs[i].dtype != "float32" || !(whole || repeated))
            return Error{"input " + m_op.inputs[i].name
                         + " is not a float32 tensor of the loss's shape or of its last dimensions"};
    }
    m_recipe.prologue = "elementwise";
    const auto &declared = m_op.inputs.front().shape;
    m_recipe.rows = declared.empty() ? "1" : declared.front();
    m_recipe.cols = "1";
    for (std::size_t d = 1; d < declared.size(); ++d)
        m_recipe.cols = d == 1 ? declared[d] : m_recipe.cols + "*" + declared[d];
    for (const auto size : shape)
        m_terms *= size;
    return {};
}

// torch.mean((p - t) ** 2): the elementwise calls before the mean are the term.
Status LossTranslation::fullReduction(const GraphNode &node)
{
    const auto &input = node.inputs[0];
    auto term = termOperand(input, input.tensor.shape);
    if (!term)
        return term.error();
    m_recipe.expression = *term;
    m_recipe.reduction = node.kind.substr(6);
    m_lossInput = input.tensor.shape;
    if (auto status = elementwiseTerms(input.tensor.shape); !status)
        return status;
    m_loss = node.outputs[0].value;
    return {};
}

Status LossTranslation::rowLoss(const GraphNode &node)
{
    const bool crossEntropy = node.kind == "aten::cross_entropy_loss";
    const std::size_t tensors = crossEntropy ? 2 : 3;
    if (node.inputs.size() < tensors + 1)
        return Error{node.kind + " with too few arguments"};
    for (std::size_t i = 0; i < tensors; ++i)
        if (!node.inputs[i].isTensor || inputIndex(node.inputs[i].tensor.value) != int(i) || i >= m_op.inputs.size())
            return Error{node.kind + " of other tensors than the op's inputs in their order: the loss template reads "
                         + (crossEntropy ? "the logits and the targets" : "anchor, positive and negative")};
    if (m_op.inputs.size() != tensors)
        return Error{"the op has inputs that " + node.kind + " does not read"};
    const auto &shape = node.inputs[0].tensor.shape;
    if (shape.size() != 2 || declaredShape(0) != shape || m_op.inputs[0].shape.size() != 2)
        return Error{node.kind + " of a " + std::to_string(shape.size())
                     + "-D input: the loss template takes [batch, classes] or [batch, features]"};
    m_recipe.rows = m_op.inputs[0].shape[0];
    m_recipe.cols = m_op.inputs[0].shape[1];
    m_terms = shape[0];
    m_cols = shape[1];
    if (crossEntropy) {
        const auto &target = node.inputs[1].tensor;
        if (target.dtype != "int64" || target.shape != std::vector<std::int64_t>{shape[0]})
            return Error{"aten::cross_entropy_loss with " + target.dtype
                         + " targets of another shape than [batch]: the loss template takes int64 class indices"};
        if (node.inputs.size() < 6 || !node.inputs[2].constant.is_null() || node.inputs[2].isTensor)
            return Error{"aten::cross_entropy_loss with class weights: the loss template weighs every class alike"};
        auto reduction = reductionOf(node, 3);
        if (!reduction)
            return reduction.error();
        const auto ignore = integer(node.inputs[4].constant);
        if (!ignore || (*ignore >= 0 && *ignore < shape[1]))
            return Error{"aten::cross_entropy_loss with ignore_index inside the classes: the loss template counts "
                         "every row"};
        if (constantAt(node, 5).value_or(1.0) != 0.0)
            return Error{"aten::cross_entropy_loss with label smoothing: the loss template takes plain targets"};
        m_recipe.reduction = *reduction;
        m_recipe.prologue = "cross-entropy";
        auto &targets = m_op.inputs[1];
        if (targets.shape != std::vector<std::string>{m_recipe.rows})
            return Error{"the targets " + targets.name + " are not declared [" + m_recipe.rows + "]"};
        targets.valueRange = {"0", m_recipe.cols}; // the trials draw class indices
        return {};
    }
    for (std::size_t i = 1; i < 3; ++i)
        if (node.inputs[i].tensor.shape != shape || m_op.inputs[i].shape != m_op.inputs[0].shape)
            return Error{"aten::triplet_margin_loss of operands of different shapes"};
    const auto margin = constantAt(node, 3), norm = constantAt(node, 4), eps = constantAt(node, 5);
    if (!margin || !eps)
        return Error{"aten::triplet_margin_loss with a margin or eps that is not a number"};
    if (norm != 2.0)
        return Error{"aten::triplet_margin_loss with p other than 2: the loss template takes Euclidean distances"};
    if (node.inputs.size() < 8 || node.inputs[6].constant != false)
        return Error{"aten::triplet_margin_loss with swap: the loss template takes the anchor's distances"};
    auto reduction = reductionOf(node, 7);
    if (!reduction)
        return reduction.error();
    m_recipe.reduction = *reduction;
    m_recipe.prologue = "triplet-margin";
    m_recipe.eps = *eps;
    // clamp_min(margin + d(a, p) - d(a, n), 0), NaN going through as in PyTorch.
    const std::string hinge = floatLiteral(*margin) + " + dpos - dneg";
    m_recipe.expression = "(" + hinge + " <= 0.0f ? 0.0f : " + hinge + ")";
    return {};
}

Status LossTranslation::addLoss(const GraphNode &node)
{
    if (!m_loss.empty())
        return Error{"more than one loss call: the loss template computes one"};
    if (node.outputs.size() != 1 || !node.outputs[0].shape.empty() || node.inputs.empty() || !node.inputs[0].isTensor)
        return Error{node.kind + " that does not reduce to a scalar"};
    m_lossInput = node.inputs[0].tensor.shape;
    auto status = isElementwiseLoss(node.kind) ? elementwiseLoss(node) : rowLoss(node);
    if (!status)
        return status;
    m_loss = node.outputs[0].value;
    return {};
}

// kl_div's reduction='batchmean': the sum divided by the first dimension's size.
Status LossTranslation::divideBySize(const GraphNode &node)
{
    if (m_loss.empty() || node.inputs.size() < 2 || !node.inputs[0].isTensor
        || canonical(node.inputs[0].tensor.value) != m_loss || !node.inputs[1].isTensor
        || node.inputs[1].tensor.dtype != "int64")
        return Error{"aten::div of other values than the loss and a size"};
    if (m_recipe.reduction != "sum" || !m_sizeQueried || m_lossInput.empty() || *m_sizeQueried != 0)
        return Error{"aten::div of the loss by another size than its batch (the first dimension's) of a summed "
                     "loss"};
    m_recipe.reduction = "batchmean";
    m_loss = node.outputs.at(0).value;
    return {};
}

Expected<Op> LossTranslation::run()
{
    if (m_graph.outputs.size() != 1 || m_op.outputs.size() != 1)
        return Error{"the model returns more than one value: a loss is one"};
    for (const auto &input : m_graph.inputs) {
        const auto it = std::find_if(m_op.inputs.begin(), m_op.inputs.end(),
                                     [&](const TensorSpec &t) { return t.name == input.name; });
        if (it == m_op.inputs.end())
            return Error{"the graph input " + input.name + " is not an input of the op"};
        m_inputs[input.value] = int(it - m_op.inputs.begin());
    }
    m_recipe.family = "loss";
    const auto &nodes = m_graph.nodes;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const GraphNode &node = nodes[i];
        Status status;
        if (isView(node.kind) && !node.inputs.empty() && node.inputs[0].isTensor && node.outputs.size() == 1) {
            m_alias[node.outputs[0].value] = canonical(node.inputs[0].tensor.value);
        } else if (node.kind == "aten::broadcast_tensors") {
            if (i + 1 >= nodes.size() || nodes[i + 1].kind != "prim::ListUnpack")
                return Error{"aten::broadcast_tensors whose result is not unpacked"};
            status = unpackBroadcast(node, nodes[++i]);
        } else if (lossKinds().count(node.kind)) {
            status = addLoss(node);
        } else if (node.kind == "aten::size") {
            m_sizeQueried = integer(node.inputs.size() > 1 ? node.inputs[1].constant : nlohmann::json());
        } else if (node.kind == "prim::NumToTensor") {
            continue; // the size as a tensor, for the division
        } else if (isFullReduction(node) && m_loss.empty()) {
            status = fullReduction(node);
        } else if (node.kind == "aten::div" && !m_loss.empty()) {
            status = divideBySize(node);
        } else if (isElementwiseCall(node) && !node.outputs.empty() && node.outputs[0].dtype == "float32") {
            status = addElementwise(node);
        } else {
            return Error{node.kind + " beside a loss: the loss template fuses elementwise calls before it"};
        }
        if (!status)
            return status.error();
    }
    if (m_loss.empty())
        return Error{"no loss call"};
    if (canonical(m_graph.outputs.front()) != m_loss)
        return Error{"the model returns another value than the loss"};
    m_op.recipe = toJson(m_recipe);
    // The terms are summed in another order than PyTorch's: the rounding grows with their number (relative to the
    // divisor) and, for a row's logsumexp or distances, with the row's length.
    const double divisor = m_recipe.reduction == "sum"         ? 1.0
                           : m_recipe.reduction == "batchmean" ? double(m_lossInput.front())
                                                               : double(m_terms);
    double atol = std::max(1e-3, summationAtol(m_terms) / divisor);
    if (m_recipe.prologue != "elementwise")
        atol = std::max(atol, summationAtol(m_cols));
    m_op.policy.atol = atol;
    m_op.policy.rtol = 1e-3;
    m_op.policy.allowLibrarySteps = false;
    m_op.policy.allowedLibraryOps.clear();
    return m_op;
}

} // namespace

bool LossTranslator::appliesTo(const OpGraph &graph)
{
    if (std::any_of(graph.nodes.begin(), graph.nodes.end(),
                    [](const GraphNode &node) { return lossKinds().count(node.kind) > 0; }))
        return true;
    // A mean or sum of everything after elementwise calls only (MSE, hinge): an elementwise loss.
    if (graph.nodes.empty() || !isFullReduction(graph.nodes.back()))
        return false;
    return std::all_of(graph.nodes.begin(), graph.nodes.end() - 1, [](const GraphNode &node) {
        return isView(node.kind) || (isElementwiseCall(node) && !node.outputs.empty()
                                     && node.outputs[0].dtype == "float32");
    });
}

Expected<Op> LossTranslator::translate(const OpGraph &graph, Op op)
{
    return LossTranslation(graph, std::move(op)).run();
}

} // namespace kx
