#include "core/kernelbench/atencalls.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace kx::atencalls {

// Calls that only change how a value is viewed (no arithmetic).
const std::set<std::string> &viewKinds()
{
    static const std::set<std::string> kinds{"aten::reshape",   "aten::view",    "aten::contiguous", "aten::flatten",
                                             "aten::unsqueeze", "aten::squeeze", "aten::dropout",    "aten::detach",
                                             "aten::clone",     "aten::alias"};
    return kinds;
}

// FLOPs per output element of the elementwise calls (what the roofline floor counts).
const std::map<std::string, int> &elementwiseKinds()
{
    static const std::map<std::string, int> kinds{
        {"aten::relu", 1},       {"aten::relu6", 2},     {"aten::sigmoid", 4},     {"aten::tanh", 4},
        {"aten::gelu", 8},       {"aten::silu", 5},      {"aten::mish", 6},        {"aten::add", 1},
        {"aten::sub", 1},        {"aten::rsub", 1},      {"aten::mul", 1},         {"aten::div", 1},
        {"aten::clamp", 2},      {"aten::clamp_min", 1}, {"aten::clamp_max", 1},   {"aten::hardtanh", 2},
        {"aten::leaky_relu", 2}, {"aten::elu", 3},       {"aten::selu", 4},        {"aten::softplus", 4},
        {"aten::exp", 1},        {"aten::log", 1},       {"aten::abs", 1},         {"aten::neg", 1},
        {"aten::pow", 1},        {"aten::sqrt", 1},      {"aten::rsqrt", 1},       {"aten::sin", 1},
        {"aten::cos", 1},        {"aten::erf", 1},       {"aten::log1p", 1},       {"aten::expm1", 1},
        {"aten::reciprocal", 1}, {"aten::square", 1},    {"aten::hardsigmoid", 3}, {"aten::hardswish", 4},
        {"aten::maximum", 1},    {"aten::minimum", 1},   {"aten::threshold", 1},   {"aten::logsigmoid", 4}};
    return kinds;
}

const std::set<std::string> &reduceKinds()
{
    static const std::set<std::string> kinds{"aten::sum", "aten::mean", "aten::prod",   "aten::amax",  "aten::amin",
                                             "aten::max", "aten::min",  "aten::argmax", "aten::argmin"};
    return kinds;
}

const std::set<std::string> &anchorKinds()
{
    static const std::set<std::string> kinds{
        "aten::linear",    "aten::matmul",      "aten::mm",           "aten::addmm",       "aten::softmax",
        "aten::_softmax",  "aten::log_softmax", "aten::_log_softmax", "aten::layer_norm", "aten::instance_norm", "aten::t",
        // Norms of channel groups (see normtranslation.cpp).
        "aten::group_norm",
        "aten::transpose", "aten::permute",     "aten::conv2d",       "aten::_convolution",
        // Vector norms: the statistic of an L1 or L2 normalisation (see rowtranslation.cpp).
        "aten::norm", "aten::linalg_vector_norm",
        // Products and what only presents their operands or result differently (see gemmtranslation.cpp).
        "aten::bmm", "aten::einsum", "aten::numpy_T", "aten::diag", "aten::triu", "aten::tril",
        // Attention as two products around a softmax (see attentiontranslation.cpp).
        "aten::scaled_dot_product_attention"};
    return kinds;
}

bool isView(const std::string &kind)
{
    return viewKinds().count(kind) > 0;
}
bool isElementwise(const std::string &kind)
{
    return elementwiseKinds().count(kind) > 0;
}

double summationAtol(std::int64_t terms, double termSize)
{
    return std::max(1e-3, 1e-3 * double(terms) / 4096 * termSize);
}

Expected<std::string> numberLiteral(const GraphNode &node, const GraphArgument &argument)
{
    const auto value = number(argument.constant);
    if (!value)
        return Error{node.kind + " has an argument that is not a number"};
    return floatLiteral(*value);
}

std::string floatLiteral(double value)
{
    if (std::isnan(value))
        return "__int_as_float(0x7fffffff)";
    if (std::isinf(value))
        return value > 0 ? "__int_as_float(0x7f800000)" : "__int_as_float(0xff800000)";
    char text[64];
    std::snprintf(text, sizeof text, "%.9g", value);
    std::string literal = text;
    if (literal.find_first_of(".e") == std::string::npos)
        literal += ".0";
    literal += "f";
    return value < 0 ? "(" + literal + ")" : literal;
}

std::optional<double> number(const nlohmann::json &value)
{
    if (value.is_number())
        return value.get<double>();
    if (value.is_boolean())
        return value.get<bool>() ? 1.0 : 0.0;
    return std::nullopt;
}

std::optional<std::int64_t> integer(const nlohmann::json &value)
{
    if (value.is_number_integer())
        return value.get<std::int64_t>();
    if (value.is_array() && value.size() == 1 && value[0].is_number_integer())
        return value[0].get<std::int64_t>();
    return std::nullopt;
}

std::optional<std::vector<std::int64_t>> integers(const nlohmann::json &value)
{
    if (!value.is_array())
        return std::nullopt;
    std::vector<std::int64_t> result;
    for (const auto &item : value) {
        if (!item.is_number_integer())
            return std::nullopt;
        result.push_back(item.get<std::int64_t>());
    }
    return result;
}

bool allEqual(const nlohmann::json &value, std::int64_t expected)
{
    const auto items = integers(value);
    return items && std::all_of(items->begin(), items->end(), [&](std::int64_t v) { return v == expected; });
}

// Parentheses around a subexpression unless it is a name or a literal.
std::string wrap(const std::string &expression)
{
    const bool simple = std::all_of(expression.begin(), expression.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '[' || c == ']';
    });
    if (simple)
        return expression;
    // Already one parenthesised group: "(a + b)" but not "(a) + (b)".
    if (expression.front() == '(') {
        int depth = 0;
        for (std::size_t i = 0; i < expression.size(); ++i) {
            depth += expression[i] == '(' ? 1 : expression[i] == ')' ? -1 : 0;
            if (depth == 0)
                return i + 1 == expression.size() ? expression : "(" + expression + ")";
        }
    }
    return "(" + expression + ")";
}

namespace {

// PyTorch's clamp(x, low, high): min(max(x, low), high), and NaN where x is NaN.
std::string clampBoth(const std::string &x, const std::string &low, const std::string &high)
{
    return "(" + x + " != " + x + " ? " + x + " : fminf(fmaxf(" + x + ", " + low + "), " + high + "))";
}

} // namespace

bool isElementwiseCall(const GraphNode &node)
{
    return isElementwise(node.kind)
           || ((node.kind == "aten::min" || node.kind == "aten::max") && node.overload == "other");
}

Expected<std::string> elementwiseExpression(const GraphNode &node, const Operand &operand)
{
    const auto &kind = node.kind;
    const auto arg = [&](std::size_t i) -> Expected<std::string> {
        if (i >= node.inputs.size())
            return Error{kind + " has too few arguments"};
        return operand(i);
    };
    const auto scalar = [&](std::size_t i) -> std::optional<double> {
        if (i >= node.inputs.size() || node.inputs[i].isTensor)
            return std::nullopt;
        return number(node.inputs[i].constant);
    };
    const auto isNull = [&](std::size_t i) { return i >= node.inputs.size() || node.inputs[i].constant.is_null(); };
    auto a = arg(0);
    if (!a)
        return a.error();
    const std::string x = wrap(*a);
    const auto unary = [&](const std::string &function) { return function + "(" + *a + ")"; };

    // NaN goes through as on PyTorch's CUDA kernels (fmaxf and fminf would drop it): relu is clamp_min(x, 0).
    if (kind == "aten::relu")
        return "(" + x + " <= 0.0f ? 0.0f : " + x + ")";
    if (kind == "aten::relu6")
        return clampBoth(x, "0.0f", "6.0f");
    if (kind == "aten::sigmoid")
        return "(1.0f / (1.0f + expf(-" + x + ")))";
    if (kind == "aten::logsigmoid")
        return "(-log1pf(expf(-" + x + ")))";
    if (kind == "aten::tanh")
        return unary("tanhf");
    if (kind == "aten::gelu") {
        const std::string mode = node.inputs.size() > 1 && node.inputs[1].constant.is_string()
                                     ? node.inputs[1].constant.get<std::string>()
                                     : "none";
        if (mode == "tanh")
            return "(0.5f * " + x + " * (1.0f + tanhf(0.7978845608f * (" + x + " + 0.044715f * " + x + " * " + x + " * "
                   + x + "))))";
        if (mode != "none")
            return Error{"aten::gelu with approximate='" + mode + "'"};
        return "(0.5f * " + x + " * (1.0f + erff(" + x + " * 0.70710678118f)))";
    }
    if (kind == "aten::silu")
        return "(" + x + " / (1.0f + expf(-" + x + ")))";
    if (kind == "aten::mish")
        return "(" + x + " * tanhf(log1pf(expf(" + x + "))))";
    if (kind == "aten::exp" || kind == "aten::log" || kind == "aten::sqrt" || kind == "aten::rsqrt"
        || kind == "aten::sin" || kind == "aten::cos" || kind == "aten::erf" || kind == "aten::log1p"
        || kind == "aten::expm1")
        return unary(kind.substr(6) + "f");
    if (kind == "aten::abs")
        return unary("fabsf");
    if (kind == "aten::neg")
        return "(-" + x + ")";
    if (kind == "aten::reciprocal")
        return "(1.0f / " + x + ")";
    if (kind == "aten::square")
        return "(" + x + " * " + x + ")";
    if (kind == "aten::hardsigmoid")
        return "(" + x + " != " + x + " ? " + x + " : fminf(fmaxf(" + x + " / 6.0f + 0.5f, 0.0f), 1.0f))";
    if (kind == "aten::hardswish")
        return "(" + x + " * fminf(fmaxf(" + x + " + 3.0f, 0.0f), 6.0f) / 6.0f)";
    if (kind == "aten::selu")
        return "(1.0507009873554805f * (" + x + " > 0.0f ? " + x + " : 1.6732632423543772f * expm1f(" + x + ")))";

    if (kind == "aten::clamp" || kind == "aten::hardtanh" || kind == "aten::clamp_min" || kind == "aten::clamp_max") {
        const bool hasMin = kind != "aten::clamp_max" && !isNull(1);
        const std::size_t maxIndex = kind == "aten::clamp_max" ? 1 : 2;
        const bool hasMax = kind != "aten::clamp_min" && !isNull(maxIndex);
        const auto low = scalar(1), high = scalar(maxIndex);
        if ((hasMin && !low) || (hasMax && !high))
            return Error{kind + " with a tensor bound"};
        const std::string lowText = hasMin ? floatLiteral(low.value()) : "";
        const std::string highText = hasMax ? floatLiteral(high.value()) : "";
        if (hasMin && hasMax)
            return clampBoth(x, lowText, highText);
        if (hasMin)
            return "(" + x + " <= " + lowText + " ? " + lowText + " : " + x + ")";
        if (hasMax)
            return "(" + x + " >= " + highText + " ? " + highText + " : " + x + ")";
        return *a;
    }
    if (kind == "aten::leaky_relu") {
        const double slope = scalar(1).value_or(0.01);
        return "(" + x + " > 0.0f ? " + x + " : " + floatLiteral(slope) + " * " + x + ")";
    }
    if (kind == "aten::elu") {
        const double alpha = scalar(1).value_or(1.0), scale = scalar(2).value_or(1.0),
                     inputScale = scalar(3).value_or(1.0);
        return "(" + x + " > 0.0f ? " + floatLiteral(scale) + " * " + x + " : " + floatLiteral(scale * alpha)
               + " * expm1f(" + floatLiteral(inputScale) + " * " + x + "))";
    }
    if (kind == "aten::softplus") {
        const double beta = scalar(1).value_or(1.0), threshold = scalar(2).value_or(20.0);
        const std::string scaled = floatLiteral(beta) + " * " + x;
        return "(" + scaled + " > " + floatLiteral(threshold) + " ? " + x + " : log1pf(expf(" + scaled + ")) / "
               + floatLiteral(beta) + ")";
    }
    if (kind == "aten::threshold") {
        const auto threshold = scalar(1), value = scalar(2);
        if (!threshold || !value)
            return Error{"aten::threshold with tensor arguments"};
        return "(" + x + " <= " + floatLiteral(*threshold) + " ? " + floatLiteral(*value) + " : " + x + ")";
    }
    if (kind == "aten::pow") {
        if (const auto exponent = scalar(1)) {
            if (*exponent == 2.0)
                return "(" + x + " * " + x + ")";
            if (*exponent == 3.0)
                return "(" + x + " * " + x + " * " + x + ")";
            if (*exponent == 0.5)
                return "sqrtf(" + *a + ")";
            return "powf(" + *a + ", " + floatLiteral(*exponent) + ")";
        }
        auto b = arg(1);
        if (!b)
            return b.error();
        return "powf(" + *a + ", " + *b + ")";
    }

    // Binary calls: the second operand is a tensor or a scalar.
    auto b = arg(1);
    if (!b)
        return b.error();
    const std::string y = wrap(*b);
    if ((kind == "aten::max" || kind == "aten::min") && node.overload != "other")
        return Error{kind + " reduces: it is not an elementwise call"};
    // torch.maximum and torch.max(x, other) give NaN where either side is NaN.
    if (kind == "aten::maximum" || kind == "aten::max")
        return "(" + x + " != " + x + " || " + x + " > " + y + " ? " + x + " : " + y + ")";
    if (kind == "aten::minimum" || kind == "aten::min")
        return "(" + x + " != " + x + " || " + x + " < " + y + " ? " + x + " : " + y + ")";
    if (kind == "aten::mul")
        return "(" + x + " * " + y + ")";
    if (kind == "aten::div") {
        if (!isNull(2))
            return Error{"aten::div with a rounding mode"};
        return "(" + x + " / " + y + ")";
    }
    const double alpha = scalar(2).value_or(1.0);
    const std::string scaledB = alpha == 1.0 ? y : floatLiteral(alpha) + " * " + y;
    const std::string scaledA = alpha == 1.0 ? x : floatLiteral(alpha) + " * " + x;
    if (kind == "aten::add")
        return "(" + x + " + " + scaledB + ")";
    if (kind == "aten::sub")
        return "(" + x + " - " + scaledB + ")";
    if (kind == "aten::rsub")
        return "(" + y + " - " + scaledA + ")";
    return Error{kind + " is not an elementwise call"};
}

} // namespace kx::atencalls
