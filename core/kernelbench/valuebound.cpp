#include "core/kernelbench/valuebound.h"

#include "core/kernelbench/atencalls.h"
#include "core/kernelbench/windowcalls.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

namespace kx {
namespace {

// Calls whose results have unit size whatever their inputs' size.
bool isNormalization(const std::string &kind)
{
    static const std::set<std::string> kinds{
        "aten::softmax",           "aten::_softmax",          "aten::layer_norm",
        "aten::group_norm",        "aten::batch_norm",        "aten::instance_norm",
        "aten::native_layer_norm", "aten::native_group_norm", "aten::native_batch_norm"};
    return kinds.count(kind) > 0;
}

} // namespace

ValueBound ValueBound::product(std::int64_t terms, bool reordered) const
{
    const double root = std::sqrt(double(std::max<std::int64_t>(1, terms)));
    return {size * root, error * root + (reordered ? atencalls::summationAtol(terms, size) : 0.0)};
}

ValueBound ValueBound::sum(std::int64_t terms) const
{
    return product(terms, true);
}

ValueBound ValueBound::mean(std::int64_t terms) const
{
    const auto total = sum(terms);
    const double count = double(std::max<std::int64_t>(1, terms));
    return {total.size / count, total.error / count};
}

ValueBound ValueBound::normalized() const
{
    return {1, size > 0 ? error / size : error};
}

ValueBound ValueBound::widest(const std::vector<ValueBound> &bounds)
{
    if (bounds.empty())
        return {};
    ValueBound result{0, 0};
    for (const auto &bound : bounds) {
        result.size = std::max(result.size, bound.size);
        result.error = std::max(result.error, bound.error);
    }
    return result;
}

ValueBound ValueBound::ofLibraryCall(const GraphNode &node, const ValueBound &arguments)
{
    if (const auto terms = productTerms(node); terms > 0)
        return arguments.product(terms, false);
    return isNormalization(node.kind) ? arguments.normalized() : arguments;
}

std::int64_t productTerms(const GraphNode &node)
{
    const auto &kind = node.kind;
    const auto lastSize = [&](std::size_t i) -> std::int64_t {
        if (i >= node.inputs.size() || !node.inputs[i].isTensor || node.inputs[i].tensor.shape.empty())
            return 0;
        return node.inputs[i].tensor.shape.back();
    };
    if (kind == "aten::linear" || kind == "aten::matmul" || kind == "aten::mm" || kind == "aten::bmm")
        return lastSize(0);
    if (kind == "aten::addmm" || kind == "aten::baddbmm")
        return lastSize(1);
    if (!windowcalls::isConvolution(kind))
        return 0;
    const auto call = windowcalls::windowCallOf(node);
    if (!call || call->weight < 0 || std::size_t(call->weight) >= node.inputs.size())
        return 0;
    const auto &weight = node.inputs[std::size_t(call->weight)].tensor.shape;
    if (weight.size() < 2)
        return 0;
    // Forward: C_in / groups channels (weight [C_out, C_in / groups, ...]); transposed: weight [C_in, C_out /
    // groups, ...], each output sums over C_in / groups of the input channels.
    std::int64_t terms =
        call->window.transposed ? weight[0] / std::max<std::int64_t>(call->window.groups, 1) : weight[1];
    for (const auto size : call->window.kernel)
        terms *= size;
    return terms;
}

} // namespace kx
