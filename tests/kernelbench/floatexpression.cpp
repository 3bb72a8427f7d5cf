#include "floatexpression.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <vector>

namespace kx::test {
namespace {

// Recursive descent over C's precedence levels: ?: below ||, &&, equality, relational, additive, multiplicative.
class Evaluator
{
public:
    Evaluator(const std::string &text, const std::map<std::string, float> &variables)
        : m_text(text)
        , m_variables(variables)
    {}

    float run()
    {
        const float value = conditional();
        skipSpace();
        if (m_at != m_text.size())
            fail("unexpected text");
        return value;
    }

private:
    [[noreturn]] void fail(const std::string &what) const
    {
        throw std::invalid_argument(what + " at " + std::to_string(m_at) + " in: " + m_text);
    }
    void skipSpace()
    {
        while (m_at < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_at])))
            ++m_at;
    }
    bool take(const char *token)
    {
        skipSpace();
        const auto length = std::strlen(token);
        if (m_text.compare(m_at, length, token) != 0)
            return false;
        // "<" is not the start of "<=", "|" not of "||".
        if (length == 1 && m_at + 1 < m_text.size() && m_text[m_at + 1] == '=' && std::strchr("<>!=", token[0]))
            return false;
        m_at += length;
        return true;
    }
    void expect(const char *token)
    {
        if (!take(token))
            fail(std::string("expected '") + token + "'");
    }

    float conditional()
    {
        const float condition = logicalOr();
        if (!take("?"))
            return condition;
        const float whenTrue = conditional();
        expect(":");
        const float whenFalse = conditional();
        return condition != 0.0f ? whenTrue : whenFalse;
    }
    float logicalOr()
    {
        float value = logicalAnd();
        while (take("||")) {
            const float right = logicalAnd();
            value = (value != 0.0f || right != 0.0f) ? 1.0f : 0.0f;
        }
        return value;
    }
    float logicalAnd()
    {
        float value = equality();
        while (take("&&")) {
            const float right = equality();
            value = (value != 0.0f && right != 0.0f) ? 1.0f : 0.0f;
        }
        return value;
    }
    float equality()
    {
        float value = relational();
        for (;;) {
            if (take("=="))
                value = value == relational() ? 1.0f : 0.0f;
            else if (take("!="))
                value = value != relational() ? 1.0f : 0.0f;
            else
                return value;
        }
    }
    float relational()
    {
        float value = additive();
        for (;;) {
            if (take("<="))
                value = value <= additive() ? 1.0f : 0.0f;
            else if (take(">="))
                value = value >= additive() ? 1.0f : 0.0f;
            else if (take("<"))
                value = value < additive() ? 1.0f : 0.0f;
            else if (take(">"))
                value = value > additive() ? 1.0f : 0.0f;
            else
                return value;
        }
    }
    float additive()
    {
        float value = multiplicative();
        for (;;) {
            if (take("+"))
                value = value + multiplicative();
            else if (take("-"))
                value = value - multiplicative();
            else
                return value;
        }
    }
    float multiplicative()
    {
        float value = unary();
        for (;;) {
            if (take("*"))
                value = value * unary();
            else if (take("/"))
                value = value / unary();
            else
                return value;
        }
    }
    float unary()
    {
        if (take("-"))
            return -unary();
        if (take("!"))
            return unary() == 0.0f ? 1.0f : 0.0f;
        return primary();
    }
    float primary()
    {
        skipSpace();
        if (take("(")) {
            const float value = conditional();
            expect(")");
            return value;
        }
        if (m_at < m_text.size() && (std::isdigit(static_cast<unsigned char>(m_text[m_at])) || m_text[m_at] == '.'))
            return number();
        const auto start = m_at;
        while (m_at < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[m_at])) || m_text[m_at] == '_'))
            ++m_at;
        const std::string name = m_text.substr(start, m_at - start);
        if (name.empty())
            fail("expected a value");
        if (name == "__int_as_float") {
            expect("(");
            skipSpace();
            std::size_t used = 0;
            const auto bits = std::uint32_t(std::stoul(m_text.substr(m_at), &used, 0));
            m_at += used;
            expect(")");
            float value;
            std::memcpy(&value, &bits, sizeof value);
            return value;
        }
        if (take("("))
            return call(name);
        const auto variable = m_variables.find(name);
        if (variable == m_variables.end())
            fail("unknown variable " + name);
        return variable->second;
    }
    float number()
    {
        std::size_t used = 0;
        const float value = std::stof(m_text.substr(m_at), &used);
        m_at += used;
        if (m_at < m_text.size() && m_text[m_at] == 'f')
            ++m_at;
        return value;
    }
    float call(const std::string &name)
    {
        std::vector<float> arguments{conditional()};
        while (take(","))
            arguments.push_back(conditional());
        expect(")");
        static const std::map<std::string, std::function<float(float)>> unaryFunctions{
            {"expf", [](float x) { return std::exp(x); }},     {"logf", [](float x) { return std::log(x); }},
            {"tanhf", [](float x) { return std::tanh(x); }},   {"erff", [](float x) { return std::erf(x); }},
            {"log1pf", [](float x) { return std::log1p(x); }}, {"expm1f", [](float x) { return std::expm1(x); }},
            {"sqrtf", [](float x) { return std::sqrt(x); }},   {"rsqrtf", [](float x) { return 1.0f / std::sqrt(x); }},
            {"fabsf", [](float x) { return std::fabs(x); }},   {"sinf", [](float x) { return std::sin(x); }},
            {"cosf", [](float x) { return std::cos(x); }}};
        static const std::map<std::string, std::function<float(float, float)>> binaryFunctions{
            {"fmaxf", [](float x, float y) { return std::fmax(x, y); }},
            {"fminf", [](float x, float y) { return std::fmin(x, y); }},
            {"powf", [](float x, float y) { return std::pow(x, y); }}};
        if (const auto f = unaryFunctions.find(name); f != unaryFunctions.end() && arguments.size() == 1)
            return f->second(arguments[0]);
        if (const auto f = binaryFunctions.find(name); f != binaryFunctions.end() && arguments.size() == 2)
            return f->second(arguments[0], arguments[1]);
        fail("unknown function " + name + " of " + std::to_string(arguments.size()) + " arguments");
    }

    const std::string &m_text;
    const std::map<std::string, float> &m_variables;
    std::size_t m_at = 0;
};

} // namespace

float evaluateFloatExpression(const std::string &text, const std::map<std::string, float> &variables)
{
    return Evaluator(text, variables).run();
}

} // namespace kx::test
