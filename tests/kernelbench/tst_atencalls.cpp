// The elementwise translations of atencalls, evaluated in fp32 on the CPU (floatexpression.h): NaN goes through
// every call as on PyTorch's CUDA kernels, and the calls that pick between values (relu, clamp, hardtanh,
// threshold, minimum, ...) give PyTorch's values at infinities, signed zeros and NaN.
#include "core/kernelbench/atencalls.h"

#include "floatexpression.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

using namespace kx;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

GraphArgument tensorArgument(const std::string &value)
{
    GraphArgument argument;
    argument.isTensor = true;
    argument.tensor.value = value;
    argument.tensor.shape = {16};
    return argument;
}

GraphArgument constantArgument(nlohmann::json value)
{
    GraphArgument argument;
    argument.constant = std::move(value);
    return argument;
}

// kind (with overload after a dot) of x, its constant arguments, and y as the second argument of binary calls.
GraphNode call(const std::string &name, const std::vector<nlohmann::json> &constants = {}, bool binary = false)
{
    GraphNode node;
    const auto dot = name.find('.');
    node.kind = name.substr(0, dot);
    node.overload = dot == std::string::npos ? "" : name.substr(dot + 1);
    node.inputs.push_back(tensorArgument("x"));
    if (binary)
        node.inputs.push_back(tensorArgument("y"));
    for (const auto &constant : constants)
        node.inputs.push_back(constantArgument(constant));
    GraphTensor out;
    out.value = "out";
    out.shape = {16};
    node.outputs.push_back(out);
    return node;
}

std::string expressionOf(const GraphNode &node)
{
    const auto expression = atencalls::elementwiseExpression(node, [&](std::size_t i) -> Expected<std::string> {
        const auto &argument = node.inputs.at(i);
        if (argument.isTensor)
            return argument.tensor.value;
        const auto number = atencalls::number(argument.constant);
        if (!number)
            return Error{"not a number"};
        return atencalls::floatLiteral(*number);
    });
    REQUIRE_MESSAGE(expression, (expression ? "" : expression.error().message));
    return *expression;
}

float evaluate(const GraphNode &node, float x, float y = 0.0f)
{
    return test::evaluateFloatExpression(expressionOf(node), {{"x", x}, {"y", y}});
}

// Every elementwise kind, with the arguments its schema takes after x.
std::vector<GraphNode> everyElementwiseCall()
{
    const std::map<std::string, std::vector<nlohmann::json>> constants{{"aten::gelu", {"none"}},
                                                                       {"aten::leaky_relu", {0.01}},
                                                                       {"aten::clamp", {-0.5, 2.0}},
                                                                       {"aten::hardtanh", {-1, 1}},
                                                                       {"aten::clamp_min", {0.5}},
                                                                       {"aten::clamp_max", {0.5}},
                                                                       {"aten::elu", {1.0, 1.0, 1.0}},
                                                                       {"aten::softplus", {1.0, 20.0}},
                                                                       {"aten::threshold", {0.1, 20.0}},
                                                                       {"aten::pow", {1.5}},
                                                                       {"aten::add", {1}},
                                                                       {"aten::sub", {1}},
                                                                       {"aten::rsub", {1}}};
    const std::set<std::string> binary{"aten::add", "aten::sub",     "aten::rsub",   "aten::mul",
                                       "aten::div", "aten::maximum", "aten::minimum"};
    std::vector<GraphNode> calls;
    for (const auto &[kind, flops] : atencalls::elementwiseKinds()) {
        const auto it = constants.find(kind);
        calls.push_back(
            call(kind, it == constants.end() ? std::vector<nlohmann::json>{} : it->second, binary.count(kind) > 0));
    }
    calls.push_back(call("aten::min.other", {}, true));
    calls.push_back(call("aten::max.other", {}, true));
    return calls;
}

bool same(float actual, float expected)
{
    if (std::isnan(expected) || std::isnan(actual))
        return std::isnan(expected) && std::isnan(actual);
    return actual == expected || std::fabs(actual - expected) <= 1e-6f * std::max(1.0f, std::fabs(expected));
}

const std::vector<float> kValues{kNaN, -kInf, -7.0f, -3.0f, -1.0f, -0.5f, -0.0f, 0.0f,
                                 0.1f, 0.25f, 0.5f,  1.0f,  3.0f,  7.0f,  kInf};

// PyTorch's CUDA kernels (ATen): clamp and its relatives keep NaN, then take min(max(x, low), high).
float clampLikeTorch(float x, float low, float high)
{
    return std::isnan(x) ? x : std::min(std::max(x, low), high);
}
float maximumLikeTorch(float x, float y)
{
    return std::isnan(x) ? x : std::isnan(y) ? y : std::max(x, y);
}
float minimumLikeTorch(float x, float y)
{
    return std::isnan(x) ? x : std::isnan(y) ? y : std::min(x, y);
}

} // namespace

TEST_CASE("NaN goes through every elementwise call, as in PyTorch")
{
    for (const auto &node : everyElementwiseCall()) {
        const std::string name = node.kind + (node.overload.empty() ? "" : "." + node.overload);
        CAPTURE(name);
        CAPTURE(expressionOf(node));
        CHECK(std::isnan(evaluate(node, kNaN, 1.5f)));
        if (node.inputs.size() > 1 && node.inputs[1].isTensor)
            CHECK(std::isnan(evaluate(node, 1.5f, kNaN)));
    }
}

TEST_CASE("the calls that pick between values give PyTorch's results, NaN, infinities and zeros included")
{
    const std::vector<std::pair<GraphNode, std::function<float(float)>>> unary{
        {call("aten::relu"), [](float x) { return clampLikeTorch(x, 0.0f, kInf); }},
        {call("aten::relu6"), [](float x) { return clampLikeTorch(x, 0.0f, 6.0f); }},
        {call("aten::clamp", {-0.5, 2.0}), [](float x) { return clampLikeTorch(x, -0.5f, 2.0f); }},
        {call("aten::clamp", {nullptr, 2.0}), [](float x) { return clampLikeTorch(x, -kInf, 2.0f); }},
        {call("aten::clamp_min", {0.5}), [](float x) { return clampLikeTorch(x, 0.5f, kInf); }},
        {call("aten::clamp_max", {0.5}), [](float x) { return clampLikeTorch(x, -kInf, 0.5f); }},
        {call("aten::hardtanh", {-1, 1}), [](float x) { return clampLikeTorch(x, -1.0f, 1.0f); }},
        {call("aten::hardsigmoid"), [](float x) { return std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f; }},
        {call("aten::hardswish"), [](float x) { return x * std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f; }},
        {call("aten::threshold", {0.1, 20.0}), [](float x) { return x <= 0.1f ? 20.0f : x; }},
        {call("aten::leaky_relu", {0.01}), [](float x) { return x > 0.0f ? x : x * 0.01f; }},
    };
    for (const auto &[node, expected] : unary) {
        CAPTURE(expressionOf(node));
        for (const float x : kValues) {
            CAPTURE(x);
            CHECK(same(evaluate(node, x), expected(x)));
        }
    }
    const std::vector<std::pair<GraphNode, std::function<float(float, float)>>> binary{
        {call("aten::maximum", {}, true), maximumLikeTorch},
        {call("aten::max.other", {}, true), maximumLikeTorch},
        {call("aten::minimum", {}, true), minimumLikeTorch},
        {call("aten::min.other", {}, true), minimumLikeTorch},
    };
    for (const auto &[node, expected] : binary) {
        CAPTURE(expressionOf(node));
        for (const float x : kValues)
            for (const float y : {kNaN, -kInf, -1.0f, 0.0f, 0.5f, kInf}) {
                CAPTURE(x);
                CAPTURE(y);
                CHECK(same(evaluate(node, x, y), expected(x, y)));
            }
    }
}

TEST_CASE("min and max of two tensors are elementwise; their reductions are not")
{
    CHECK(atencalls::isElementwiseCall(call("aten::min.other", {}, true)));
    CHECK(atencalls::isElementwiseCall(call("aten::max.other", {}, true)));
    CHECK(atencalls::isElementwiseCall(call("aten::relu")));
    CHECK_FALSE(atencalls::isElementwiseCall(call("aten::min.dim", {1, false})));
    CHECK_FALSE(atencalls::isElementwiseCall(call("aten::max")));
    const auto reduction = atencalls::elementwiseExpression(
        call("aten::max.dim", {1, false}), [](std::size_t) -> Expected<std::string> { return std::string("x"); });
    REQUIRE_FALSE(reduction);
    CHECK(reduction.error().message == "aten::max reduces: it is not an elementwise call");
}

TEST_CASE("the expression evaluator reads CUDA's float semantics")
{
    // It must be able to tell the old translations from the new: fmaxf drops NaN, a comparison with NaN is false.
    CHECK(test::evaluateFloatExpression("fmaxf(x, 0.0f)", {{"x", kNaN}}) == 0.0f);
    CHECK(test::evaluateFloatExpression("(x > 0.0f ? x : 0.0f)", {{"x", kNaN}}) == 0.0f);
    CHECK(std::isnan(test::evaluateFloatExpression("(x <= 0.0f ? 0.0f : x)", {{"x", kNaN}})));
    CHECK(test::evaluateFloatExpression("(-0.5f) * 2.0f + 1e-05f", {}) == -1.0f + 1e-05f);
    CHECK(test::evaluateFloatExpression("x != x || x < 1.0f ? 3.0f : 4.0f", {{"x", 2.0f}}) == 4.0f);
    CHECK(std::isinf(test::evaluateFloatExpression("__int_as_float(0xff800000)", {})));
    CHECK_THROWS_AS(test::evaluateFloatExpression("x +", {{"x", 1.0f}}), std::invalid_argument);
}
