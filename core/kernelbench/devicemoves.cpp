#include "core/kernelbench/devicemoves.h"

#include "core/kernelbench/atencalls.h"

#include <cmath>
#include <map>
#include <optional>
#include <set>

namespace kx {
namespace {

bool isMove(const GraphNode &node)
{
    return node.kind == "aten::to" && !node.inputs.empty() && node.outputs.size() == 1;
}

std::int64_t elementCount(const std::vector<std::int64_t> &shape)
{
    std::int64_t count = 1;
    for (const auto size : shape)
        count *= size;
    return count;
}

// The number a one-element tensor of dtype holds (torch.tensor(2.7).to(torch.int64) holds 2).
std::optional<double> inDtype(double value, const std::string &dtype)
{
    if (dtype == "float32")
        return double(float(value));
    if (dtype == "float64")
        return value;
    if (dtype == "int64" || dtype == "int32")
        return std::trunc(value);
    if (dtype == "bool")
        return value != 0 ? 1.0 : 0.0;
    return std::nullopt;
}

} // namespace

OpGraph withDeviceMovesFolded(const OpGraph &graph)
{
    std::map<std::string, std::string> moved;  // a moved tensor -> the tensor it moves
    std::map<std::string, double> constants;   // one-element values that hold a number ...
    std::map<std::string, std::string> rootOf; // ... and the value of the first call that made it
    std::set<const GraphNode *> makers;        // calls that make a constant
    std::set<std::string> pinned;              // roots of constants that some call reads as a tensor
    const auto resolved = [&](const std::string &value) {
        const auto it = moved.find(value);
        return it == moved.end() ? value : it->second;
    };
    const auto makeConstant = [&](const GraphNode &node, double number, const std::string &root) {
        constants[node.outputs[0].value] = number;
        rootOf[node.outputs[0].value] = root;
        makers.insert(&node);
    };
    for (const auto &node : graph.nodes) {
        const GraphArgument *first = node.inputs.empty() ? nullptr : &node.inputs[0];
        const auto *out = node.outputs.size() == 1 ? &node.outputs[0] : nullptr;
        const bool oneElement = out && elementCount(out->shape) == 1;
        const std::string source = first && first->isTensor ? resolved(first->tensor.value) : std::string();
        if (isMove(node) && oneElement && !first->isTensor) {
            const auto number = atencalls::number(first->constant);
            if (const auto held = number ? inDtype(*number, out->dtype) : std::nullopt) {
                makeConstant(node, *held, out->value);
                continue;
            }
        }
        if ((isMove(node) || atencalls::isView(node.kind)) && oneElement && constants.count(source)) {
            if (const auto held = inDtype(constants.at(source), out->dtype)) {
                makeConstant(node, *held, rootOf.at(source));
                continue;
            }
        }
        if (isMove(node) && first->isTensor && first->tensor.dtype == out->dtype && first->tensor.shape == out->shape) {
            moved[out->value] = source;
            continue;
        }
        if (!atencalls::isElementwiseCall(node))
            for (const auto &argument : node.inputs)
                if (argument.isTensor && constants.count(resolved(argument.tensor.value)))
                    pinned.insert(rootOf.at(resolved(argument.tensor.value)));
    }
    for (const auto &output : graph.outputs)
        if (constants.count(resolved(output)))
            pinned.insert(rootOf.at(resolved(output)));

    OpGraph folded;
    folded.inputs = graph.inputs;
    for (const auto &output : graph.outputs)
        folded.outputs.push_back(resolved(output));
    for (const auto &node : graph.nodes) {
        if (isMove(node) && moved.count(node.outputs[0].value))
            continue;
        if (makers.count(&node) && !pinned.count(rootOf.at(node.outputs[0].value)))
            continue;
        GraphNode copy = node;
        const bool elementwise = atencalls::isElementwiseCall(node);
        for (auto &argument : copy.inputs) {
            if (!argument.isTensor)
                continue;
            const std::string value = resolved(argument.tensor.value);
            if (elementwise && constants.count(value)) {
                argument = GraphArgument{};
                argument.constant = constants.at(value);
                continue;
            }
            argument.tensor.value = value;
        }
        folded.nodes.push_back(std::move(copy));
    }
    return folded;
}

} // namespace kx
