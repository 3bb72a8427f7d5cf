#include "core/kernelbench/scantranslation.h"

#include "core/codegen/oprecipe.h"
#include "core/kernelbench/atencalls.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace kx {
namespace {

using namespace atencalls;

bool isScanCall(const std::string &kind)
{
    return kind == "aten::cumsum" || kind == "aten::cumprod";
}

// Calls whose result takes only the shape of their tensor argument, never its values.
bool readsShapeOnly(const std::string &kind)
{
    return kind == "aten::zeros_like";
}

std::string shapeText(const std::vector<std::int64_t> &shape)
{
    std::string text;
    for (const auto size : shape)
        text += (text.empty() ? "" : ", ") + std::to_string(size);
    return "[" + text + "]";
}

// The tensors of a list argument (aten::cat's): the import names them {"value": name}.
std::vector<std::string> listedTensors(const nlohmann::json &constant)
{
    std::vector<std::string> values;
    if (constant.is_array())
        for (const auto &item : constant)
            if (item.is_object() && item.contains("value") && item["value"].is_string())
                values.push_back(item["value"].get<std::string>());
    return values;
}

// What a value of the graph is to the scan.
struct Meaning
{
    enum class Kind {
        Elements,    ///< elementwise over the inputs at each position: expression over the input names
        Flipped,     ///< Elements reversed along dim
        Head,        ///< the first n - 1 Elements along dim
        Zeros,       ///< zeros
        Scan,        ///< the scan's outputs in place: expression over acc and the input names
        FlippedScan, ///< the scan of Flipped: flipped back, a reverse scan
        HeadScan,    ///< the scan of the first n - 1 elements: behind a zero, an exclusive scan
    };
    Kind kind = Kind::Elements;
    std::string expression;
    std::int64_t dim = -1;
};

class ScanTranslation
{
public:
    ScanTranslation(const OpGraph &graph, Op op)
        : m_graph(graph)
        , m_op(std::move(op))
    {}

    Expected<Op> run();

private:
    void markLive();
    Status checkInputs();
    Status interpret(const GraphNode &node);
    Expected<Meaning> meaningOf(const GraphNode &node, std::size_t argument) const;
    Expected<std::int64_t> dimensionOf(const GraphNode &node, std::size_t argument, std::size_t rank) const;
    Status elementwise(const GraphNode &node);
    Status flip(const GraphNode &node);
    Status head(const GraphNode &node);
    Status scan(const GraphNode &node);
    Status concatenation(const GraphNode &node);
    Status setScanDimension(const GraphNode &node, std::int64_t dim);
    std::string symbolFor(const std::string &preferred, const std::vector<std::string> &dimensions);

    const OpGraph &m_graph;
    Op m_op;
    std::set<const GraphNode *> m_liveNodes;
    std::map<std::string, Meaning> m_meanings;
    std::map<std::string, std::vector<std::int64_t>> m_shapes; // computed values' shapes
    std::vector<std::int64_t> m_outputShape;
    std::string m_reduction;
    std::string m_prologue; ///< What the scan reads at a position, over the input names.
    std::int64_t m_dim = -1;
    bool m_exclusive = false, m_reverse = false;
};

void ScanTranslation::markLive()
{
    std::set<std::string> live{m_graph.outputs.front()};
    for (auto node = m_graph.nodes.rbegin(); node != m_graph.nodes.rend(); ++node) {
        if (std::none_of(node->outputs.begin(), node->outputs.end(),
                         [&](const GraphTensor &output) { return live.count(output.value) > 0; }))
            continue;
        m_liveNodes.insert(&*node);
        if (readsShapeOnly(node->kind))
            continue;
        for (const auto &argument : node->inputs) {
            if (argument.isTensor)
                live.insert(argument.tensor.value);
            for (const auto &value : listedTensors(argument.constant))
                live.insert(value);
        }
    }
}

Status ScanTranslation::checkInputs()
{
    const auto &output = m_op.outputs.front();
    if (output.dtype != "float32")
        return Error{"the model returns " + output.dtype + ": the scan template writes float32"};
    for (const auto &input : m_op.inputs) {
        if (input.dtype != "float32" && input.dtype != "bool")
            return Error{"input " + input.name + " is " + input.dtype + ": the scan template reads float32 and bool"};
        if (input.shape != output.shape)
            return Error{"input " + input.name + " has another shape than the output: the scan template reads every "
                                                 "input at the output's positions"};
    }
    for (const auto &input : m_graph.inputs)
        m_meanings[input.value] = Meaning{Meaning::Kind::Elements, input.name, -1};
    return {};
}

Expected<Meaning> ScanTranslation::meaningOf(const GraphNode &node, std::size_t argument) const
{
    if (argument >= node.inputs.size() || !node.inputs[argument].isTensor)
        return Error{node.kind + " without a tensor argument"};
    const auto it = m_meanings.find(node.inputs[argument].tensor.value);
    if (it == m_meanings.end())
        return Error{node.kind + " reads a value the scan translation does not know"};
    return it->second;
}

Expected<std::int64_t> ScanTranslation::dimensionOf(const GraphNode &node, std::size_t argument,
                                                     std::size_t rank) const
{
    const auto dim = argument < node.inputs.size() ? integer(node.inputs[argument].constant) : std::nullopt;
    const auto size = std::int64_t(rank);
    if (!dim || *dim < -size || *dim >= size)
        return Error{node.kind + " over " + (dim ? "dimension " + std::to_string(*dim) : "no single dimension")
                     + " of a " + std::to_string(rank) + "-D tensor"};
    return *dim < 0 ? *dim + size : *dim;
}

Status ScanTranslation::setScanDimension(const GraphNode &node, std::int64_t dim)
{
    if (m_dim >= 0 && m_dim != dim)
        return Error{node.kind + " over dimension " + std::to_string(dim) + ", the scan over dimension "
                     + std::to_string(m_dim)};
    m_dim = dim;
    return {};
}

Status ScanTranslation::elementwise(const GraphNode &node)
{
    bool afterScan = false;
    const auto operand = [&](std::size_t i) -> Expected<std::string> {
        const auto &argument = node.inputs[i];
        if (!argument.isTensor)
            return numberLiteral(node, argument);
        if (argument.tensor.shape != m_outputShape)
            return Error{node.kind + " of " + shapeText(argument.tensor.shape) + " beside the scan of "
                         + shapeText(m_outputShape) + ": the scan template reads every input at the output's "
                                                      "positions"};
        auto meaning = meaningOf(node, i);
        if (!meaning)
            return meaning.error();
        if (meaning->kind != Meaning::Kind::Elements && meaning->kind != Meaning::Kind::Scan)
            return Error{node.kind + " of a flipped or cut value: the scan template fuses elementwise calls on the "
                                     "inputs and on the scan's result only"};
        afterScan = afterScan || meaning->kind == Meaning::Kind::Scan;
        return meaning->expression;
    };
    auto expression = elementwiseExpression(node, operand);
    if (!expression)
        return expression.error();
    m_meanings[node.outputs.front().value] =
        Meaning{afterScan ? Meaning::Kind::Scan : Meaning::Kind::Elements, *expression, -1};
    return {};
}

Status ScanTranslation::flip(const GraphNode &node)
{
    const auto dims = node.inputs.size() > 1 ? integers(node.inputs[1].constant) : std::nullopt;
    if (!dims || dims->size() != 1)
        return Error{"aten::flip of several dimensions: a reverse scan flips the scanned one"};
    auto meaning = meaningOf(node, 0);
    if (!meaning)
        return meaning.error();
    const auto rank = node.inputs.front().tensor.shape.size();
    auto dim = dimensionOf(node, 1, rank);
    if (!dim)
        return dim.error();
    if (meaning->kind == Meaning::Kind::Elements) {
        m_meanings[node.outputs.front().value] = Meaning{Meaning::Kind::Flipped, meaning->expression, *dim};
        return {};
    }
    if (meaning->kind == Meaning::Kind::FlippedScan && meaning->dim == *dim) {
        m_reverse = true;
        m_meanings[node.outputs.front().value] = Meaning{Meaning::Kind::Scan, "acc", -1};
        return {};
    }
    return Error{"aten::flip of a value that is not the inputs or their flipped scan"};
}

// narrow(v, d, 0, n - 1) or slice(v, d, 0, n - 1, 1): the first n - 1 elements along d.
Status ScanTranslation::head(const GraphNode &node)
{
    const auto &in = node.inputs.front().tensor.shape;
    const auto &out = node.outputs.front().shape;
    auto dim = dimensionOf(node, 1, in.size());
    if (!dim)
        return dim.error();
    const auto constantAt = [&](std::size_t i) {
        return i < node.inputs.size() ? node.inputs[i].constant : nlohmann::json();
    };
    const bool slice = node.kind == "aten::slice";
    const bool fromStart = constantAt(2) == 0 || (slice && constantAt(2).is_null());
    const bool unitStep = !slice || constantAt(4).is_null() || constantAt(4) == 1;
    auto meaning = meaningOf(node, 0);
    if (!meaning)
        return meaning.error();
    if (slice && fromStart && unitStep && in == out) { // the whole dimension: a view
        m_meanings[node.outputs.front().value] = *meaning;
        return {};
    }
    auto shortened = in;
    if (!shortened.empty())
        --shortened[std::size_t(*dim)];
    if (!fromStart || !unitStep || out != shortened)
        return Error{node.kind + " to " + shapeText(out) + " of " + shapeText(in)
                     + ": the scan template cuts off the last element of the scanned dimension only"};
    if (meaning->kind == Meaning::Kind::Elements) {
        m_meanings[node.outputs.front().value] = Meaning{Meaning::Kind::Head, meaning->expression, *dim};
        return {};
    }
    if (meaning->kind == Meaning::Kind::Scan && meaning->expression == "acc" && !m_reverse && !m_exclusive) {
        if (auto status = setScanDimension(node, *dim); !status)
            return status;
        m_meanings[node.outputs.front().value] = Meaning{Meaning::Kind::HeadScan, "acc", *dim};
        return {};
    }
    return Error{node.kind + " of a value that is neither the inputs nor their plain scan"};
}

Status ScanTranslation::scan(const GraphNode &node)
{
    if (!m_reduction.empty())
        return Error{"more than one scan: the scan template generates one"};
    m_reduction = node.kind == "aten::cumsum" ? "sum" : "prod";
    if (node.inputs.size() > 2 && !node.inputs[2].constant.is_null() && node.inputs[2].constant != 6)
        return Error{node.kind + " with a dtype: the scan template accumulates float32 in float32"};
    auto meaning = meaningOf(node, 0);
    if (!meaning)
        return meaning.error();
    const auto &shape = node.inputs.front().tensor.shape;
    auto dim = dimensionOf(node, 1, shape.size());
    if (!dim)
        return dim.error();
    if (auto status = setScanDimension(node, *dim); !status)
        return status;
    const auto &result = node.outputs.front().value;
    switch (meaning->kind) {
    case Meaning::Kind::Elements:
        if (shape != m_outputShape)
            return Error{node.kind + " of " + shapeText(shape) + ", the model returns " + shapeText(m_outputShape)};
        m_meanings[result] = Meaning{Meaning::Kind::Scan, "acc", -1};
        break;
    case Meaning::Kind::Flipped:
    case Meaning::Kind::Head:
        if (meaning->dim != *dim)
            return Error{node.kind + " over another dimension than the one flipped or cut"};
        m_meanings[result] = Meaning{meaning->kind == Meaning::Kind::Flipped ? Meaning::Kind::FlippedScan
                                                                             : Meaning::Kind::HeadScan,
                                     "acc", *dim};
        break;
    default: return Error{node.kind + " of a value that is not elementwise over the inputs"};
    }
    // What the scan reads: the elementwise value at each position (flips and cuts change only where it lands).
    m_prologue = meaning->expression;
    return {};
}

// cat([zeros, scan of the first n - 1], d): an exclusive scan.
Status ScanTranslation::concatenation(const GraphNode &node)
{
    const auto parts = listedTensors(node.inputs.empty() ? nlohmann::json() : node.inputs.front().constant);
    if (parts.size() != 2 || node.inputs.front().constant.size() != 2)
        return Error{"aten::cat of other than two named tensors: an exclusive scan puts a zero before the scan of "
                     "the first n - 1 elements"};
    const auto first = m_meanings.find(parts[0]), second = m_meanings.find(parts[1]);
    auto dim = dimensionOf(node, 1, m_outputShape.size());
    if (!dim)
        return dim.error();
    const auto shape = m_shapes.find(parts[0]);
    const bool zeroSlice = first != m_meanings.end() && first->second.kind == Meaning::Kind::Zeros
                           && shape != m_shapes.end() && shape->second.size() == m_outputShape.size()
                           && shape->second[std::size_t(*dim)] == 1;
    if (!zeroSlice || second == m_meanings.end() || second->second.kind != Meaning::Kind::HeadScan
        || second->second.dim != *dim || node.outputs.front().shape != m_outputShape)
        return Error{"aten::cat of other than a zero slice and the scan of the first n - 1 elements, in that order "
                     "(an exclusive scan)"};
    m_exclusive = true;
    m_meanings[node.outputs.front().value] = Meaning{Meaning::Kind::Scan, "acc", -1};
    return {};
}

Status ScanTranslation::interpret(const GraphNode &node)
{
    for (const auto &output : node.outputs) {
        if (output.dtype != "float32")
            return Error{node.kind + " computes " + output.dtype + ": the scan template computes float32"};
        m_shapes[output.value] = output.shape;
    }
    if (node.outputs.size() != 1)
        return Error{node.kind + " with " + std::to_string(node.outputs.size()) + " results"};
    const auto &kind = node.kind;
    if (isView(kind)) {
        auto meaning = meaningOf(node, 0);
        if (!meaning)
            return meaning.error();
        if (node.outputs.front().shape != node.inputs.front().tensor.shape)
            return Error{kind + " changes the shape of a value around the scan"};
        m_meanings[node.outputs.front().value] = *meaning;
        return {};
    }
    if (isElementwise(kind))
        return elementwise(node);
    if (kind == "aten::flip")
        return flip(node);
    if (kind == "aten::narrow" || kind == "aten::slice")
        return head(node);
    if (isScanCall(kind))
        return scan(node);
    if (kind == "aten::zeros_like" || kind == "aten::zeros") {
        m_meanings[node.outputs.front().value] = Meaning{Meaning::Kind::Zeros, "0.0f", -1};
        return {};
    }
    if (kind == "aten::cat")
        return concatenation(node);
    return Error{kind + " beside a scan: the scan template fuses elementwise calls before and after one cumsum or "
                        "cumprod, flips for a reverse scan and a zero slice for an exclusive one"};
}

// A shape symbol for the product of dimensions: "1" for none, the dimension itself for one, else a new symbol bound
// in every shape set.
std::string ScanTranslation::symbolFor(const std::string &preferred, const std::vector<std::string> &dimensions)
{
    if (dimensions.empty())
        return "1";
    if (dimensions.size() == 1)
        return dimensions.front();
    std::string symbol = preferred;
    for (int suffix = 2; std::any_of(m_op.shapeSets.begin(), m_op.shapeSets.end(),
                                     [&](const ShapeSet &set) { return set.count(symbol) > 0; });
         ++suffix)
        symbol = preferred + std::to_string(suffix);
    for (auto &set : m_op.shapeSets) {
        std::int64_t value = 1;
        for (const auto &dimension : dimensions)
            value *= set.count(dimension) ? set.at(dimension) : std::stoll(dimension);
        set[symbol] = value;
    }
    return symbol;
}

Expected<Op> ScanTranslation::run()
{
    if (m_graph.outputs.size() != 1 || m_op.outputs.size() != 1)
        return Error{"the model returns " + std::to_string(m_graph.outputs.size())
                     + " outputs: the scan template generates one"};
    if (auto status = checkInputs(); !status)
        return status.error();
    markLive();
    for (const auto &node : m_graph.nodes)
        for (const auto &output : node.outputs)
            if (output.value == m_graph.outputs.front())
                m_outputShape = output.shape;
    for (const auto &node : m_graph.nodes)
        if (m_liveNodes.count(&node))
            if (auto status = interpret(node); !status)
                return status.error();
    const auto result = m_meanings.find(m_graph.outputs.front());
    if (m_reduction.empty() || result == m_meanings.end() || result->second.kind != Meaning::Kind::Scan)
        return Error{"the model returns something other than a scan (and an epilogue over it)"};

    const auto &dimensions = m_op.outputs.front().shape;
    if (dimensions.size() != m_outputShape.size())
        return Error{"the output is declared with another rank than the graph computes"};
    const auto d = std::size_t(m_dim);
    OpRecipe recipe;
    recipe.family = "scan";
    recipe.reduction = m_reduction;
    recipe.prologue = m_prologue == m_op.inputs.front().name ? std::string() : m_prologue;
    recipe.expression = result->second.expression == "acc" ? std::string() : result->second.expression;
    recipe.exclusive = m_exclusive;
    recipe.reverse = m_reverse;
    recipe.rows = symbolFor("R", {dimensions.begin(), dimensions.begin() + std::ptrdiff_t(d)});
    recipe.cols = dimensions[d];
    recipe.inner = symbolFor("I", {dimensions.begin() + std::ptrdiff_t(d) + 1, dimensions.end()});
    // fp32 sums in another order than PyTorch's: the rounding grows with the length of the scan.
    m_op.recipe = toJson(recipe);
    m_op.policy.atol = m_reduction == "sum" ? std::max(1e-2, summationAtol(m_outputShape[d])) : 1e-4;
    m_op.policy.rtol = 1e-3;
    return m_op;
}

} // namespace

bool ScanTranslator::appliesTo(const OpGraph &graph)
{
    // Shape bookkeeping (a narrow's length from aten::size) and the calls around a scan; a graph with anything else
    // is left to the other translations, which name its unsupported calls.
    static const std::set<std::string> around{"aten::flip",   "aten::narrow",      "aten::slice",
                                              "aten::select", "aten::cat",         "aten::zeros_like",
                                              "aten::zeros",  "aten::size",        "prim::NumToTensor",
                                              "aten::Int",    "aten::ScalarImplicit"};
    const auto known = [](const GraphNode &node) {
        return isScanCall(node.kind) || isView(node.kind) || isElementwise(node.kind) || around.count(node.kind);
    };
    return std::all_of(graph.nodes.begin(), graph.nodes.end(), known)
           && std::any_of(graph.nodes.begin(), graph.nodes.end(),
                          [](const GraphNode &node) { return isScanCall(node.kind); });
}

Expected<Op> ScanTranslator::translate(const OpGraph &graph, Op op)
{
    return ScanTranslation(graph, std::move(op)).run();
}

} // namespace kx
