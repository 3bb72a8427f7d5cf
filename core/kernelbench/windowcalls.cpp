#include "core/kernelbench/windowcalls.h"

#include "core/kernelbench/atencalls.h"

#include <set>

namespace kx::windowcalls {
namespace {

using atencalls::integer;
using atencalls::integers;

const std::set<std::string> &convolutionKinds()
{
    static const std::set<std::string> kinds{
        "aten::_convolution", "aten::convolution",      "aten::conv1d",           "aten::conv2d",
        "aten::conv3d",       "aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d"};
    return kinds;
}

const std::set<std::string> &poolingKinds()
{
    static const std::set<std::string> kinds{"aten::max_pool1d", "aten::max_pool2d", "aten::max_pool3d",
                                             "aten::avg_pool1d", "aten::avg_pool2d", "aten::avg_pool3d"};
    return kinds;
}

// Reads the call's constant arguments by position.
class Arguments
{
public:
    Arguments(const GraphNode &node, std::size_t rank)
        : m_node(node)
        , m_rank(rank)
    {}

    const nlohmann::json &at(std::size_t i) const
    {
        static const nlohmann::json none;
        return i < m_node.inputs.size() && !m_node.inputs[i].isTensor ? m_node.inputs[i].constant : none;
    }
    // One value per spatial dimension: a list of that length, one value for all, or fallback when absent.
    Expected<std::vector<std::int64_t>> perDimension(std::size_t i, const char *name, std::int64_t fallback) const
    {
        const auto &value = at(i);
        if (value.is_null() || (value.is_array() && value.empty()))
            return std::vector<std::int64_t>(m_rank, fallback);
        if (const auto one = integer(value); one && !value.is_array())
            return std::vector<std::int64_t>(m_rank, *one);
        const auto values = integers(value);
        if (!values || (values->size() != m_rank && values->size() != 1))
            return Error{m_node.kind + ": the " + name + " " + value.dump() + " is not " + std::to_string(m_rank)
                         + " integers"};
        return values->size() == 1 ? std::vector<std::int64_t>(m_rank, values->front()) : *values;
    }
    Expected<bool> flag(std::size_t i, const char *name, bool fallback) const
    {
        const auto &value = at(i);
        if (value.is_null())
            return fallback;
        if (!value.is_boolean())
            return Error{m_node.kind + ": the " + name + " " + value.dump() + " is not true or false"};
        return value.get<bool>();
    }
    Expected<std::int64_t> groups(std::size_t i) const
    {
        const auto value = integer(at(i));
        if (!at(i).is_null() && !value)
            return Error{m_node.kind + ": groups " + at(i).dump() + " is not an integer"};
        return value.value_or(1);
    }

private:
    const GraphNode &m_node;
    std::size_t m_rank;
};

Expected<WindowCall> convolutionCall(const GraphNode &node, std::size_t rank)
{
    const Arguments args(node, rank);
    const auto &kind = node.kind;
    const bool general = kind == "aten::_convolution" || kind == "aten::convolution";
    const bool transposeCall = kind.rfind("aten::conv_transpose", 0) == 0;
    WindowCall call;
    call.conv = true;
    call.weight = 1;
    if (node.inputs.size() > 2 && node.inputs[2].isTensor)
        call.bias = 2;
    if (node.inputs.size() < 2 || !node.inputs[1].isTensor)
        return Error{kind + " without a weight tensor"};
    const auto &weight = node.inputs[1].tensor.shape;
    if (weight.size() != rank + 2)
        return Error{kind + ": the weight has " + std::to_string(weight.size()) + " dimensions, not "
                     + std::to_string(rank + 2)};
    call.window.kernel.assign(weight.begin() + 2, weight.end());
    if (args.at(4).is_string()) {
        if (args.at(4).get<std::string>() != "valid")
            return Error{kind + " with padding '" + args.at(4).get<std::string>()
                         + "': the conv stage takes explicit padding only"};
    }
    // Argument positions: (x, w, b, stride, padding, dilation, transposed, output_padding, groups ...),
    // conv<N>d (x, w, b, stride, padding, dilation, groups), conv_transpose<N>d (x, w, b, stride, padding,
    // output_padding, groups, dilation).
    const std::size_t dilationAt = general ? 5 : transposeCall ? 7 : 5;
    const std::size_t groupsAt = general ? 8 : transposeCall ? 6 : 6;
    auto stride = args.perDimension(3, "stride", 1);
    auto padding = args.at(4).is_string() ? Expected<std::vector<std::int64_t>>(std::vector<std::int64_t>(rank, 0))
                                          : args.perDimension(4, "padding", 0);
    auto dilation = args.perDimension(dilationAt, "dilation", 1);
    auto groups = args.groups(groupsAt);
    auto transposed = general ? args.flag(6, "transposed flag", false) : Expected<bool>(transposeCall);
    for (const Error *error : {stride ? nullptr : &stride.error(), padding ? nullptr : &padding.error(),
                               dilation ? nullptr : &dilation.error(), groups ? nullptr : &groups.error(),
                               transposed ? nullptr : &transposed.error()})
        if (error)
            return *error;
    call.window.stride = *stride;
    call.window.padding = *padding;
    call.window.dilation = *dilation;
    call.window.groups = *groups;
    call.window.transposed = *transposed;
    call.window.outputPadding.assign(rank, 0);
    if (*transposed) {
        auto outputPadding = args.perDimension(general ? 7 : 5, "output_padding", 0);
        if (!outputPadding)
            return outputPadding.error();
        call.window.outputPadding = *outputPadding;
    }
    return call;
}

Expected<WindowCall> poolingCall(const GraphNode &node, std::size_t rank)
{
    const Arguments args(node, rank);
    const bool max = node.kind.find("max_pool") != std::string::npos;
    WindowCall call;
    call.pooling = max ? "max" : "avg";
    auto kernel = args.perDimension(1, "kernel size", 0);
    if (!kernel)
        return kernel.error();
    call.window.kernel = *kernel;
    auto stride = args.perDimension(2, "stride", 0); // absent or empty: the kernel size
    auto padding = args.perDimension(3, "padding", 0);
    auto dilation = max ? args.perDimension(4, "dilation", 1)
                        : Expected<std::vector<std::int64_t>>(std::vector<std::int64_t>(rank, 1));
    auto ceilMode = args.flag(max ? 5 : 4, "ceil_mode", false);
    auto countIncludePad = max ? Expected<bool>(true) : args.flag(5, "count_include_pad", true);
    for (const Error *error : {stride ? nullptr : &stride.error(), padding ? nullptr : &padding.error(),
                               dilation ? nullptr : &dilation.error(), ceilMode ? nullptr : &ceilMode.error(),
                               countIncludePad ? nullptr : &countIncludePad.error()})
        if (error)
            return *error;
    for (std::size_t d = 0; d < rank; ++d)
        if ((*stride)[d] == 0)
            (*stride)[d] = (*kernel)[d];
    if (!max && !args.at(6).is_null())
        return Error{node.kind + " with divisor_override " + args.at(6).dump()
                     + ": the pool stage divides by the window size"};
    call.window.stride = *stride;
    call.window.padding = *padding;
    call.window.dilation = *dilation;
    call.window.outputPadding.assign(rank, 0);
    call.window.ceilMode = *ceilMode;
    call.window.countIncludePad = *countIncludePad;
    return call;
}

} // namespace

bool isConvolution(const std::string &kind)
{
    return convolutionKinds().count(kind) > 0;
}

bool isWindowCall(const std::string &kind)
{
    return isConvolution(kind) || poolingKinds().count(kind) > 0;
}

Expected<WindowCall> windowCallOf(const GraphNode &node)
{
    if (!isWindowCall(node.kind))
        return Error{node.kind + " is neither a convolution nor a pooling"};
    if (node.inputs.empty() || !node.inputs[0].isTensor)
        return Error{node.kind + " without an input tensor"};
    const auto &x = node.inputs[0].tensor.shape;
    if (x.size() < 3 || x.size() > 5)
        return Error{node.kind + " of a " + std::to_string(x.size())
                     + "-D input: the window stages take batched inputs [N, C, 1 to 3 spatial dimensions]"};
    const std::size_t rank = x.size() - 2;
    const char last = node.kind.back() == 'd' && node.kind.size() > 2 ? node.kind[node.kind.size() - 2] : '\0';
    if (last >= '1' && last <= '3' && std::size_t(last - '0') != rank)
        return Error{node.kind + " of a " + std::to_string(x.size())
                     + "-D input: an unbatched input (the window stages need [N, C, spatial...])"};
    return isConvolution(node.kind) ? convolutionCall(node, rank) : poolingCall(node, rank);
}

} // namespace kx::windowcalls
