// GroupNorm and InstanceNorm of a graph translation: each (sample, group) of x [N, C, ...] is a row of contiguous
// elements (its channels in order) normalised as a LayerNorm; the affine weight and bias are per channel, so the
// recipe says how a row's elements fall into channels (groups, channelSize). InstanceNorm is GroupNorm with a
// group for each channel.
#include "core/kernelbench/graphtranslation.h"

#include "core/kernelbench/atencalls.h"

namespace kx::translation {

using namespace atencalls;

namespace {

nlohmann::json constantOf(const GraphNode &node, std::size_t i)
{
    return i < node.inputs.size() && !node.inputs[i].isTensor ? node.inputs[i].constant : nlohmann::json();
}

bool isTensorArgument(const GraphArgument *argument)
{
    return argument && argument->isTensor;
}

} // namespace

Expected<Op> Translation::groupNorm(const GraphNode &node)
{
    // aten::group_norm(x, num_groups, weight, bias, eps, cudnn_enabled)
    const auto &shape = node.inputs.front().tensor.shape;
    if (shape.size() < 2)
        return Error{"aten::group_norm of a tensor with fewer than 2 dimensions (it needs [N, C, ...])"};
    const auto groups = integer(constantOf(node, 1));
    if (!groups || *groups < 1)
        return Error{"aten::group_norm without a constant, positive number of groups"};
    const std::int64_t channels = shape[1];
    if (channels % *groups != 0)
        return Error{"aten::group_norm of " + std::to_string(channels) + " channels in " + std::to_string(*groups)
                     + " groups: the channels do not divide into the groups"};
    const auto &x = m_op.inputs.front();
    if (x.shape.size() != shape.size())
        return Error{"input " + x.name + " is declared with other dimensions than aten::group_norm sees"};
    // A row is a group's channels and their elements: C / groups times the spatial size.
    const std::vector<std::string> columns(x.shape.begin() + 1, x.shape.end());
    return channelGroups(node, std::to_string(*groups), columns, *groups, argument(node, 2), argument(node, 3),
                         number(constantOf(node, 4)).value_or(1e-5));
}

Expected<Op> Translation::instanceNorm(const GraphNode &node)
{
    // aten::instance_norm(x, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled)
    const auto &shape = node.inputs.front().tensor.shape;
    if (shape.size() < 3)
        return Error{"aten::instance_norm of a tensor with fewer than 3 dimensions"};
    for (const std::size_t i : {3, 4})
        if (i >= node.inputs.size() || node.inputs[i].isTensor || !node.inputs[i].constant.is_null())
            return Error{"aten::instance_norm with running statistics (the templates normalise with the input's)"};
    if (constantOf(node, 5) != true)
        return Error{"aten::instance_norm with running statistics instead of the input's"};
    const auto &x = m_op.inputs.front();
    if (x.shape.size() != shape.size())
        return Error{"input " + x.name + " is declared with other dimensions than aten::instance_norm sees"};
    // A group for each channel: rows N * C of the spatial elements.
    const std::vector<std::string> spatial(x.shape.begin() + 2, x.shape.end());
    return channelGroups(node, x.shape[1], spatial, 1, argument(node, 1), argument(node, 2),
                         number(constantOf(node, 7)).value_or(1e-5));
}

Expected<Op> Translation::channelGroups(const GraphNode &node, const std::string &groups,
                                        const std::vector<std::string> &columns, std::int64_t divisor,
                                        const GraphArgument *weight, const GraphArgument *bias, double eps)
{
    const bool affine = isTensorArgument(weight);
    if (affine != isTensorArgument(bias))
        return Error{node.kind
                     + " with an affine weight but no bias, or a bias but no weight (the norm templates "
                       "take both or neither)"};
    const std::int64_t channels = node.inputs.front().tensor.shape[1];
    if (affine) {
        if (inputIndex(*weight) != 1 || inputIndex(*bias) != 2)
            return Error{node.kind + " whose affine weight and bias are not the op's inputs after x"};
        const std::vector<std::int64_t> perChannel{channels};
        if (weight->tensor.shape != perChannel || bias->tensor.shape != perChannel)
            return Error{node.kind + " with an affine weight of " + shapeText(weight->tensor.shape) + " and bias of "
                         + shapeText(bias->tensor.shape) + ": the templates take one value a channel, "
                         + shapeText(perChannel)};
    }
    if (m_op.inputs.size() != (affine ? 3u : 1u))
        return Error{"the op has inputs that " + node.kind + " does not use"};
    OpRecipe recipe;
    recipe.family = "norm";
    recipe.reduction = "layernorm";
    recipe.eps = eps;
    const auto &x = m_op.inputs.front();
    if (auto status = derivedSymbol("R", {x.shape[0], groups}, recipe.rows); !status)
        return status.error();
    if (auto status =
            derivedSymbol("C", columns.empty() ? std::vector<std::string>{"1"} : columns, recipe.cols, divisor);
        !status)
        return status.error();
    if (affine) {
        // Element c of row (n, g) is in channel g * (cols / channelSize) + c / channelSize.
        recipe.groups = groups;
        const std::vector<std::string> spatial(x.shape.begin() + 2, x.shape.end());
        if (spatial == columns && divisor == 1) // a channel a row (InstanceNorm)
            recipe.channelSize = recipe.cols;
        else if (!spatial.empty())
            if (auto status = derivedSymbol("S", spatial, recipe.channelSize); !status)
                return status.error();
    }
    return finish(recipe, 1e-4, 1e-3);
}

} // namespace kx::translation
