#include "core/kernelbench/pipelinetranslator.h"

#include "core/codegen/oprecipe.h"
#include "core/codegen/pipeline.h"
#include "core/kernelbench/atencalls.h"
#include "core/kernelbench/valuebound.h"
#include "core/kernelbench/windowcalls.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace kx {
namespace {

using namespace atencalls;
using Shape = std::vector<std::int64_t>;

std::string shapeText(const Shape &shape)
{
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
}

Shape withoutLeadingOnes(Shape shape)
{
    while (!shape.empty() && shape.front() == 1)
        shape.erase(shape.begin());
    return shape;
}

std::vector<std::string> withoutLeadingOnes(std::vector<std::string> shape)
{
    while (!shape.empty() && shape.front() == "1")
        shape.erase(shape.begin());
    return shape;
}

/// Names the concrete sizes of a traced graph with the op's shape symbols, adding derived symbols to the
/// shape sets where a size changes between them like no symbol does.
class Symbolizer
{
public:
    explicit Symbolizer(std::vector<ShapeSet> &shapeSets)
        : m_sets(shapeSets)
    {}

    std::vector<std::string> operator()(const Shape &first, const Shape &second)
    {
        std::vector<std::string> names;
        const bool knowSecond = second.size() == first.size() && m_sets.size() > 1;
        for (std::size_t d = 0; d < first.size(); ++d)
            names.push_back(name(first[d], knowSecond ? std::optional(second[d]) : std::nullopt));
        return names;
    }

private:
    std::string name(std::int64_t first, std::optional<std::int64_t> second)
    {
        if (first == 1 && (!second || *second == 1))
            return "1";
        if (m_sets.empty())
            return std::to_string(first);
        std::vector<std::string> matches;
        for (const auto &[symbol, value] : m_sets.front())
            if (value == first
                && (!second || m_sets.size() < 2 || (m_sets[1].count(symbol) && m_sets[1].at(symbol) == *second)))
                matches.push_back(symbol);
        // With the second set known, any symbol that follows the size in both sets is right; without it,
        // only a size that one symbol alone has is safely that symbol.
        if (!matches.empty() && (second || matches.size() == 1))
            return matches.front();
        if (!second || *second == first)
            return std::to_string(first);
        std::string symbol;
        for (int n = 1; symbol.empty() || m_sets.front().count(symbol); ++n)
            symbol = "dim" + std::to_string(n);
        m_sets[0][symbol] = first;
        m_sets[1][symbol] = *second;
        for (std::size_t s = 2; s < m_sets.size(); ++s)
            m_sets[s][symbol] = first; // only two sets are traced
        return symbol;
    }

    std::vector<ShapeSet> &m_sets;
};

bool isReductionCall(const GraphNode &node)
{
    const auto &kind = node.kind;
    return (kind == "aten::sum" && node.overload == "dim_IntList") || (kind == "aten::mean" && node.overload == "dim")
           || kind == "aten::amax" || kind == "aten::amin" || kind == "aten::logsumexp"
           || ((kind == "aten::max" || kind == "aten::min") && node.overload == "dim");
}

class Builder
{
public:
    /// generateWindows: convolutions and poolings become generated stages instead of library steps.
    Builder(const OpGraph &graph, Op op, bool generateWindows)
        : m_graph(graph)
        , m_op(std::move(op))
        , m_symbolize(m_op.shapeSets)
        , m_generateWindows(generateWindows)
    {}

    Expected<Op> run();
    /// After run(): whether it failed because every call was a library step.
    bool generatedNothing() const { return m_nothingGenerated; }

private:
    struct Chain
    {
        std::vector<const GraphNode *> nodes;
        std::vector<std::string> shape; // symbolic, leading ones dropped
        Shape concrete;
        std::string code;
        std::map<std::string, std::string> variables; // graph value -> variable
        std::vector<PipelineTensor> operands;
        std::map<std::string, std::size_t> operandIndex; // tensor name + shape -> a<i>
    };

    std::string canonical(const std::string &value) const
    {
        const auto it = m_alias.find(value);
        return it == m_alias.end() ? value : it->second;
    }
    Expected<PipelineTensor> tensorAtUse(const GraphTensor &tensor);
    Status addToChain(const GraphNode &node);
    Status flushChain();
    Status addReduction(const GraphNode &node);
    Status addLibraryCall(const GraphNode &node);
    Status addWindowStage(const GraphNode &node);
    Expected<nlohmann::json> constantArg(const GraphNode &node, const nlohmann::json &constant) const;
    std::string materialize(const std::string &value);
    Expected<std::string> chainOperand(const GraphArgument &argument,
                                       const std::vector<std::string> &shapeOverride = {});
    Expected<std::string> batchNormExpression(const GraphNode &node);
    bool usedOutside(const std::string &value, const std::set<const GraphNode *> &inside) const;
    ValueBound boundOf(const std::string &tensor) const
    {
        const auto it = m_bounds.find(tensor);
        return it == m_bounds.end() ? ValueBound{} : it->second;
    }
    /// Records how far a stage's result may be from the reference's: the tolerance covers it.
    void setBound(const std::string &tensor, const ValueBound &bound)
    {
        m_bounds[tensor] = bound;
        m_atol = std::max(m_atol, bound.error);
    }

    const OpGraph &m_graph;
    Op m_op;
    Symbolizer m_symbolize;
    std::map<std::string, std::string> m_alias;      // views -> the value they view
    std::map<std::string, std::string> m_inputNames; // graph input values -> op input names
    std::map<std::string, std::string> m_tensors;    // computed values -> the tensor that holds them
    std::map<std::string, std::vector<const GraphNode *>> m_consumers;
    std::set<std::string> m_names; // every tensor name in use
    std::string m_result;          // the value the model returns
    std::vector<PipelineStage> m_stages;
    std::vector<std::string> m_libraryOps;
    std::map<std::string, ValueBound> m_bounds; // computed tensors (inputs: unit size, exact)
    std::optional<Chain> m_chain;
    bool m_generates = false;
    bool m_generateWindows = false;
    bool m_nothingGenerated = false;
    double m_atol = 1e-4, m_rtol = 1e-4;
};

Expected<PipelineTensor> Builder::tensorAtUse(const GraphTensor &tensor)
{
    const std::string value = canonical(tensor.value);
    if (const auto input = m_inputNames.find(value); input != m_inputNames.end()) {
        // An op input as the call sees it: its declared dimensions where the sizes line up, ones elsewhere.
        const auto spec = std::find_if(m_op.inputs.begin(), m_op.inputs.end(),
                                       [&](const TensorSpec &t) { return t.name == input->second; });
        std::vector<std::string> shape;
        std::size_t next = 0;
        bool aligned = true;
        for (const auto size : tensor.shape) {
            if (size == 1) {
                if (next < spec->shape.size() && spec->shape[next] == "1")
                    ++next;
                shape.push_back("1");
                continue;
            }
            while (next < spec->shape.size() && spec->shape[next] == "1")
                ++next;
            const auto declared = next < spec->shape.size() && !m_op.shapeSets.empty()
                                      ? (spec->shape[next].find_first_not_of("0123456789") == std::string::npos
                                             ? std::optional<std::int64_t>(std::stoll(spec->shape[next]))
                                             : (m_op.shapeSets.front().count(spec->shape[next])
                                                    ? std::optional(m_op.shapeSets.front().at(spec->shape[next]))
                                                    : std::nullopt))
                                      : std::nullopt;
            if (!declared || *declared != size) {
                aligned = false;
                break;
            }
            shape.push_back(spec->shape[next++]);
        }
        if (!aligned) // a view that regroups dimensions: name the sizes one by one
            shape = m_symbolize(tensor.shape, tensor.secondShape);
        return PipelineTensor{input->second, shape};
    }
    const auto held = m_tensors.find(value);
    if (held == m_tensors.end())
        return Error{"a call reads " + tensor.value + " before it is computed"};
    return PipelineTensor{held->second, m_symbolize(tensor.shape, tensor.secondShape)};
}

std::string Builder::materialize(const std::string &value)
{
    if (const auto it = m_tensors.find(value); it != m_tensors.end())
        return it->second;
    std::string name = value == m_result ? m_op.outputs.front().name : std::string();
    for (int n = 0; name.empty() || (value != m_result && m_names.count(name)); ++n)
        name = "t" + std::to_string(n);
    m_names.insert(name);
    m_tensors[value] = name;
    return name;
}

bool Builder::usedOutside(const std::string &value, const std::set<const GraphNode *> &inside) const
{
    if (value == m_result)
        return true;
    const auto it = m_consumers.find(value);
    if (it == m_consumers.end())
        return false;
    return std::any_of(it->second.begin(), it->second.end(),
                       [&](const GraphNode *node) { return !inside.count(node); });
}

Expected<std::string> Builder::chainOperand(const GraphArgument &argument,
                                            const std::vector<std::string> &shapeOverride)
{
    Chain &chain = *m_chain;
    if (!argument.isTensor) {
        const auto value = number(argument.constant);
        if (!value)
            return Error{"an elementwise call has an argument that is neither a tensor nor a number"};
        return floatLiteral(*value);
    }
    const std::string value = canonical(argument.tensor.value);
    if (const auto it = chain.variables.find(value); it != chain.variables.end())
        return it->second;
    if (argument.tensor.dtype != "float32")
        return Error{"an elementwise call reads a " + argument.tensor.dtype + " tensor"};
    auto tensor = tensorAtUse(argument.tensor);
    if (!tensor)
        return tensor.error();
    if (!shapeOverride.empty())
        tensor->shape = shapeOverride;
    tensor->shape = withoutLeadingOnes(tensor->shape);
    if (tensor->shape.size() > chain.shape.size())
        return Error{"an operand of " + shapeText(argument.tensor.shape) + " is larger than the result "
                     + shapeText(chain.concrete)};
    // Each dimension equals the result's or is 1 (the sizes of the first shape set decide).
    const Shape used = withoutLeadingOnes(argument.tensor.shape);
    const std::size_t offset = chain.concrete.size() - std::min(chain.concrete.size(), used.size());
    if (shapeOverride.empty())
        for (std::size_t d = 0; d < used.size() && d + offset < chain.concrete.size(); ++d)
            if (used[d] != 1 && used[d] != chain.concrete[d + offset])
                return Error{"an operand of " + shapeText(argument.tensor.shape) + " does not broadcast to "
                             + shapeText(chain.concrete)};
    const std::string key = tensor->name + shapeProduct(tensor->shape) + std::to_string(tensor->shape.size());
    if (const auto it = chain.operandIndex.find(key); it != chain.operandIndex.end())
        return "a" + std::to_string(it->second);
    chain.operandIndex[key] = chain.operands.size();
    chain.operands.push_back(std::move(*tensor));
    return "a" + std::to_string(chain.operands.size() - 1);
}

// BatchNorm with running statistics (inference): per-channel scale and shift of the elementwise kind.
Expected<std::string> Builder::batchNormExpression(const GraphNode &node)
{
    const auto &x = node.inputs.at(0).tensor;
    std::vector<std::string> perChannel;
    if (x.shape.size() < 2)
        return Error{"aten::batch_norm of a tensor without channels"};
    // x is computed earlier in this chain (a scaled GEMM result) or held by a tensor.
    std::vector<std::string> shape;
    if (m_chain->variables.count(canonical(x.value))) {
        shape = m_symbolize(x.shape, x.secondShape);
    } else {
        const auto seen = tensorAtUse(x);
        if (!seen)
            return seen.error();
        shape = seen->shape;
    }
    perChannel.push_back(shape.at(1)); // [C, 1, 1]: one value per channel of [B, C, H, W]
    perChannel.resize(x.shape.size() - 1, "1");
    auto input = chainOperand(node.inputs[0]);
    if (!input)
        return input.error();
    std::string terms[4];
    for (std::size_t i = 1; i <= 4; ++i) {
        if (!node.inputs[i].isTensor)
            continue;
        auto operand = chainOperand(node.inputs[i], perChannel);
        if (!operand)
            return operand.error();
        terms[i - 1] = *operand;
    }
    const auto &[weight, bias, mean, variance] = terms;
    const auto eps = number(node.inputs.size() > 7 ? node.inputs[7].constant : nlohmann::json()).value_or(1e-5);
    std::string expression = "(" + *input + " - " + mean + ") * rsqrtf(" + variance + " + " + floatLiteral(eps) + ")";
    if (!weight.empty())
        expression += " * " + weight;
    if (!bias.empty())
        expression += " + " + bias;
    return expression;
}

Status Builder::addToChain(const GraphNode &node)
{
    const Shape result = withoutLeadingOnes(node.outputs.at(0).shape);
    if (m_chain && m_chain->concrete != result)
        if (auto flushed = flushChain(); !flushed)
            return flushed;
    if (!m_chain) {
        m_chain.emplace();
        m_chain->concrete = result;
        m_chain->shape = withoutLeadingOnes(m_symbolize(node.outputs[0].shape, node.outputs[0].secondShape));
        if (m_chain->shape.empty()) {
            m_chain->shape = {"1"};
            m_chain->concrete = {1};
        }
    }
    Expected<std::string> expression = Error{""};
    if (node.kind == "aten::batch_norm")
        expression = batchNormExpression(node);
    else
        expression = elementwiseExpression(node, [&](std::size_t i) { return chainOperand(node.inputs.at(i)); });
    if (!expression)
        return expression.error();
    const std::string variable = "v" + std::to_string(m_chain->variables.size());
    m_chain->code += "const float " + variable + " = " + *expression + ";\n";
    m_chain->variables[node.outputs[0].value] = variable;
    m_chain->nodes.push_back(&node);
    return {};
}

Status Builder::flushChain()
{
    if (!m_chain)
        return {};
    Chain chain = std::move(*m_chain);
    m_chain.reset();
    const std::set<const GraphNode *> inside(chain.nodes.begin(), chain.nodes.end());
    PipelineStage stage;
    stage.kind = PipelineStage::Kind::Elementwise;
    stage.operands = chain.operands;
    stage.code = chain.code;
    std::vector<ValueBound> operandBounds;
    for (const auto &operand : chain.operands)
        operandBounds.push_back(boundOf(operand.name));
    for (const auto *node : chain.nodes) {
        const auto &value = node->outputs[0].value;
        if (!usedOutside(value, inside))
            continue;
        stage.outputs.push_back({materialize(value), chain.shape});
        stage.results.push_back(chain.variables[value]);
        setBound(stage.outputs.back().name, ValueBound::widest(operandBounds));
    }
    if (stage.outputs.empty())
        return {}; // computes nothing anyone reads
    m_generates = true;
    m_stages.push_back(std::move(stage));
    return {};
}

Status Builder::addReduction(const GraphNode &node)
{
    const auto &input = node.inputs.at(0).tensor;
    const auto rank = std::int64_t(input.shape.size());
    std::vector<std::int64_t> dims;
    if (const auto list = integers(node.inputs.at(1).constant))
        dims = *list;
    else if (const auto one = integer(node.inputs.at(1).constant))
        dims = {*one};
    for (auto &d : dims)
        d = d < 0 ? d + rank : d;
    std::sort(dims.begin(), dims.end());
    const bool contiguous = !dims.empty() && dims.front() >= 0 && dims.back() < rank
                            && dims.back() - dims.front() + 1 == std::int64_t(dims.size());
    const bool withDtype = (node.kind == "aten::sum" || node.kind == "aten::mean") && node.inputs.size() > 3
                           && !node.inputs[3].constant.is_null();
    const bool secondResultUsed = node.outputs.size() > 1 && m_consumers.count(node.outputs[1].value);
    if (!contiguous || withDtype || secondResultUsed || input.dtype != "float32")
        return addLibraryCall(node);
    auto tensor = tensorAtUse(input);
    if (!tensor)
        return tensor.error();
    const auto &shape = tensor->shape;
    const auto product = [&](std::int64_t from, std::int64_t to) {
        return shapeProduct(std::vector<std::string>(shape.begin() + from, shape.begin() + to));
    };
    PipelineStage stage;
    stage.kind = PipelineStage::Kind::Reduce;
    stage.reduction = node.kind == "aten::amax" ? "max" : node.kind == "aten::amin" ? "min" : node.kind.substr(6);
    stage.operands.push_back(*tensor);
    stage.outer = product(0, dims.front());
    stage.extent = product(dims.front(), dims.back() + 1);
    stage.inner = product(dims.back() + 1, rank);
    if (stage.outer == "1" && stage.inner == "1")
        return addLibraryCall(node); // one value from everything: LibTorch's parallel reduction does better
    const auto &out = node.outputs[0];
    stage.outputs.push_back({materialize(out.value), m_symbolize(out.shape, out.secondShape)});
    std::int64_t extent = 1;
    for (auto d = dims.front(); d <= dims.back(); ++d)
        extent *= input.shape[std::size_t(d)];
    // A sum of many terms in another order than the reference: its rounding grows with the count and with the
    // terms' size (the sum of a product's results sums every product again). max and min pick an element;
    // logsumexp sums exponentials of size about 1.
    const auto in = boundOf(tensor->name);
    if (stage.reduction == "sum" || stage.reduction == "mean") {
        setBound(stage.outputs[0].name, stage.reduction == "sum" ? in.sum(extent) : in.mean(extent));
        m_atol = std::max(m_atol, 1e-3);
    } else {
        const bool sums = stage.reduction == "logsumexp";
        setBound(stage.outputs[0].name, {in.size, in.error + (sums ? atencalls::summationAtol(extent) : 0.0)});
        m_atol = std::max(m_atol, atencalls::summationAtol(extent));
    }
    m_rtol = std::max(m_rtol, 1e-3);
    m_generates = true;
    m_stages.push_back(std::move(stage));
    return {};
}

Expected<nlohmann::json> Builder::constantArg(const GraphNode &node, const nlohmann::json &constant) const
{
    if (constant.is_null())
        return nlohmann::json{{"none", nullptr}};
    if (constant.is_boolean())
        return nlohmann::json{{"bool", constant.get<bool>()}};
    if (constant.is_number_integer())
        return nlohmann::json{{"int", std::to_string(constant.get<std::int64_t>())}};
    if (constant.is_number())
        return nlohmann::json{{"float", constant.get<double>()}};
    if (constant.is_string())
        return nlohmann::json{{"string", constant.get<std::string>()}};
    if (const auto list = integers(constant)) {
        auto items = nlohmann::json::array();
        for (const auto item : *list)
            items.push_back(std::to_string(item));
        return nlohmann::json{{"ints", items}};
    }
    return Error{node.kind + " takes an argument the pipeline cannot pass (" + constant.dump() + ")"};
}

Status Builder::addLibraryCall(const GraphNode &node)
{
    if (node.outputs.empty() || node.outputs[0].dtype == "none")
        return Error{node.kind + " returns no tensor"};
    for (std::size_t i = 1; i < node.outputs.size(); ++i)
        if (m_consumers.count(node.outputs[i].value))
            return Error{"result " + std::to_string(i + 1) + " of " + node.kind + " is used: library steps give one"};
    const auto &out = node.outputs[0];
    if (out.dtype != "float32" && canonical(out.value) != m_result)
        return Error{node.kind + " computes " + out.dtype + " for a later call: intermediates are float32"};
    PipelineStage stage;
    stage.kind = PipelineStage::Kind::Library;
    stage.op = node.kind + (node.overload.empty() ? "" : "." + node.overload);
    std::vector<ValueBound> argumentBounds;
    for (const auto &argument : node.inputs) {
        if (argument.isTensor) {
            if (argument.tensor.dtype != "float32")
                return Error{node.kind + " reads a " + argument.tensor.dtype + " tensor"};
            auto tensor = tensorAtUse(argument.tensor);
            if (!tensor)
                return tensor.error();
            stage.args.push_back({{"tensor", tensor->name}, {"shape", tensor->shape}});
            argumentBounds.push_back(boundOf(tensor->name));
            continue;
        }
        // The device a traced call names is where the model was traced, not where candidates run.
        if (argument.constant.is_string()
            && (argument.constant == "cpu" || argument.constant.get<std::string>().rfind("cuda", 0) == 0))
            return Error{node.kind + " names the device " + argument.constant.get<std::string>()
                         + ": a library step runs on the candidate's device"};
        auto arg = constantArg(node, argument.constant);
        if (!arg)
            return arg.error();
        stage.args.push_back(*arg);
    }
    stage.outputDtype = out.dtype;
    stage.outputs.push_back({materialize(out.value), m_symbolize(out.shape, out.secondShape)});
    if (std::find(m_libraryOps.begin(), m_libraryOps.end(), stage.op) == m_libraryOps.end())
        m_libraryOps.push_back(stage.op);
    // LibTorch computes these the same way as the reference, but the order of the fused work around them differs:
    // a product makes larger values of what it reads (and its own rounding is the reference's).
    setBound(stage.outputs[0].name, ValueBound::ofLibraryCall(node, ValueBound::widest(argumentBounds)));
    m_atol = std::max(m_atol, 1e-3);
    m_rtol = std::max(m_rtol, 1e-3);
    m_stages.push_back(std::move(stage));
    return {};
}

Status Builder::addWindowStage(const GraphNode &node)
{
    auto call = windowcalls::windowCallOf(node);
    if (!call)
        return call.error();
    const auto &out = node.outputs.at(0);
    if (node.outputs.size() != 1 || out.dtype != "float32")
        return Error{node.kind + " with more than one float32 result"};
    PipelineStage stage;
    stage.kind = call->conv ? PipelineStage::Kind::Conv : PipelineStage::Kind::Pool;
    stage.reduction = call->pooling;
    stage.window = call->window;
    for (const int position : {0, call->weight, call->bias}) {
        if (position < 0)
            continue;
        const auto &argument = node.inputs.at(std::size_t(position));
        if (!argument.isTensor || argument.tensor.dtype != "float32")
            return Error{node.kind + " reads an argument that is not a float32 tensor"};
        auto tensor = tensorAtUse(argument.tensor);
        if (!tensor)
            return tensor.error();
        stage.operands.push_back(std::move(*tensor));
    }
    stage.outputs.push_back({materialize(out.value), m_symbolize(out.shape, out.secondShape)});
    // Sums of many products (or window values) in another order than the reference: allow for the rounding.
    std::int64_t terms = 1;
    for (const auto size : call->window.kernel)
        terms *= size;
    const auto in = boundOf(stage.operands.front().name);
    if (call->conv) {
        terms = productTerms(node);
        setBound(stage.outputs[0].name, in.product(terms, true));
        m_atol = std::max(m_atol, atencalls::summationAtol(terms));
        m_rtol = std::max(m_rtol, terms >= 1024 ? 1e-2 : 1e-3);
    } else {
        setBound(stage.outputs[0].name, in); // a window's mean or maximum is about as large as its values
        if (call->pooling == "avg") {
            m_atol = std::max(m_atol, atencalls::summationAtol(terms));
            m_rtol = std::max(m_rtol, 1e-3);
        }
    }
    m_generates = true;
    m_stages.push_back(std::move(stage));
    return {};
}

Expected<Op> Builder::run()
{
    if (m_graph.outputs.size() != 1 || m_op.outputs.size() != 1)
        return Error{"the model returns " + std::to_string(m_graph.outputs.size()) + " outputs: a pipeline writes one"};
    for (const auto &input : m_graph.inputs) {
        m_inputNames[input.value] = input.name;
        m_names.insert(input.name);
    }
    m_names.insert(m_op.outputs.front().name);
    std::vector<const GraphNode *> calls;
    for (const auto &node : m_graph.nodes) {
        if (isView(node.kind) && !node.inputs.empty() && node.inputs[0].isTensor && node.outputs.size() == 1) {
            m_alias[node.outputs[0].value] = canonical(node.inputs[0].tensor.value);
            continue;
        }
        // Size queries and the like feed only views (which read no arguments here).
        if (std::all_of(node.outputs.begin(), node.outputs.end(),
                        [](const GraphTensor &t) { return t.dtype == "none"; }))
            continue;
        calls.push_back(&node);
        for (const auto &argument : node.inputs)
            if (argument.isTensor)
                m_consumers[canonical(argument.tensor.value)].push_back(&node);
    }
    m_result = canonical(m_graph.outputs.front());
    if (m_inputNames.count(m_result))
        return Error{"the model returns one of its inputs"};
    if (calls.empty())
        return Error{"the model computes nothing"};
    for (const GraphNode *node : calls) {
        const bool inference = node->kind == "aten::batch_norm" && node->inputs.size() > 5
                               && node->inputs[5].constant == false && node->inputs[3].isTensor
                               && node->inputs[4].isTensor;
        const bool floats = !node->outputs.empty() && node->outputs[0].dtype == "float32";
        Status added;
        if ((isElementwiseCall(*node) || inference) && floats)
            added = addToChain(*node);
        else if (auto flushed = flushChain(); !flushed)
            added = flushed;
        else if (isReductionCall(*node))
            added = addReduction(*node);
        else if (m_generateWindows && windowcalls::isWindowCall(node->kind))
            added = addWindowStage(*node);
        else
            added = addLibraryCall(*node);
        if (!added)
            return added.error();
    }
    if (auto flushed = flushChain(); !flushed)
        return flushed.error();
    if (!m_tensors.count(m_result))
        return Error{"no call computes the value the model returns"};
    m_nothingGenerated = !m_generates;
    if (!m_generates)
        return Error{"every call would run as a library step (" + [&] {
            std::string list;
            for (const auto &op : m_libraryOps)
                list += (list.empty() ? "" : ", ") + op;
            return list;
        }() + "): there is nothing to generate"};
    OpRecipe recipe;
    recipe.family = "pipeline";
    recipe.stages = toJson(m_stages).dump();
    m_op.recipe = toJson(recipe);
    m_op.policy.allowLibrarySteps = !m_libraryOps.empty();
    m_op.policy.allowedLibraryOps = m_libraryOps;
    m_op.policy.atol = m_atol;
    m_op.policy.rtol = m_rtol;
    return m_op;
}

} // namespace

Expected<Op> PipelineTranslator::translate(const OpGraph &graph, Op op)
{
    // Convolutions and poolings stay library steps (LibTorch's are fast) where the pipeline generates other work;
    // where they are all there is, they are generated.
    Builder withLibrary(graph, op, false);
    auto translated = withLibrary.run();
    if (translated || !withLibrary.generatedNothing())
        return translated;
    return Builder(graph, std::move(op), true).run();
}

} // namespace kx
