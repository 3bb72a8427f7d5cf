#include "core/plan/cudaconditions.h"

#include <cctype>
#include <cstdint>
#include <limits>

namespace kx {
namespace {

using Kind = CudaToken::Kind;

// Parentheses and unary operators nested deeper than this are an error rather than deeper recursion.
constexpr int kMaxNesting = 256;

struct Value
{
    std::uint64_t bits = 0;
    bool isUnsigned = false;

    bool truth() const { return bits != 0; }
    std::int64_t asSigned() const { return static_cast<std::int64_t>(bits); }
};

Value number(std::uint64_t bits, bool isUnsigned = false)
{
    return {bits, isUnsigned};
}

Value boolean(bool value)
{
    return {value ? 1u : 0u, false};
}

int precedence(const std::string &op)
{
    if (op == "*" || op == "/" || op == "%")
        return 12;
    if (op == "+" || op == "-")
        return 11;
    if (op == "<<" || op == ">>")
        return 10;
    if (op == "<" || op == ">" || op == "<=" || op == ">=")
        return 9;
    if (op == "==" || op == "!=")
        return 8;
    if (op == "&")
        return 7;
    if (op == "^")
        return 6;
    if (op == "|")
        return 5;
    if (op == "&&")
        return 4;
    if (op == "||")
        return 3;
    if (op == "?")
        return 2;
    if (op == ",")
        return 1;
    return 0;
}

class ConditionParser
{
public:
    ConditionParser(const std::vector<PpToken> &tokens, const CudaMacroState &state, int line)
        : m_tokens(tokens)
        , m_state(state)
        , m_line(line)
    {}

    Expected<bool> run()
    {
        if (m_tokens.empty())
            return Error{where() + "#if without an expression"};
        const Value value = parse(1, true);
        if (m_error.empty() && m_pos < m_tokens.size())
            fail("unexpected '" + m_tokens[m_pos].token.text + "' in #if");
        if (!m_error.empty())
            return Error{where() + m_error};
        return value.truth();
    }

private:
    std::string where() const { return "line " + std::to_string(m_line) + ": "; }

    const CudaToken *current() const { return m_pos < m_tokens.size() ? &m_tokens[m_pos].token : nullptr; }
    bool at(const char *text) const { return current() && current()->is(text); }

    Value fail(const std::string &message)
    {
        if (m_error.empty())
            m_error = message;
        m_pos = m_tokens.size();
        return {};
    }

    // Binary operators of at least minPrecedence; evaluate is false in a short-circuited operand.
    Value parse(int minPrecedence, bool evaluate)
    {
        if (++m_depth > kMaxNesting)
            return fail("#if expression nested deeper than " + std::to_string(kMaxNesting) + " levels");
        Value left = unary(evaluate);
        while (m_error.empty() && current() && current()->kind == Kind::Punctuator) {
            const std::string op = current()->text;
            const int level = precedence(op);
            if (level == 0 || level < minPrecedence)
                break;
            ++m_pos;
            if (op == "?") {
                const Value then = parse(2, evaluate && left.truth());
                if (!at(":"))
                    return fail("'?' without ':' in #if");
                ++m_pos;
                const Value otherwise = parse(2, evaluate && !left.truth());
                const bool isUnsigned = then.isUnsigned || otherwise.isUnsigned;
                left = left.truth() ? then : otherwise;
                left.isUnsigned = isUnsigned;
            } else if (op == "&&") {
                const Value right = parse(level + 1, evaluate && left.truth());
                left = boolean(left.truth() && right.truth());
            } else if (op == "||") {
                const Value right = parse(level + 1, evaluate && !left.truth());
                left = boolean(left.truth() || right.truth());
            } else {
                const Value right = parse(level + 1, evaluate);
                left = apply(op, left, right, evaluate);
            }
        }
        --m_depth;
        return left;
    }

    Value apply(const std::string &op, Value a, Value b, bool evaluate)
    {
        const bool isUnsigned = a.isUnsigned || b.isUnsigned;
        const auto compare = [&](auto less) {
            return isUnsigned ? boolean(less(a.bits, b.bits)) : boolean(less(a.asSigned(), b.asSigned()));
        };
        if (op == "*")
            return number(a.bits * b.bits, isUnsigned);
        if (op == "/" || op == "%") {
            if (b.bits == 0)
                return evaluate ? fail("division by zero in #if") : number(0, isUnsigned);
            if (isUnsigned)
                return number(op == "/" ? a.bits / b.bits : a.bits % b.bits, true);
            if (a.asSigned() == std::numeric_limits<std::int64_t>::min() && b.asSigned() == -1)
                return number(op == "/" ? a.bits : 0); // Wraps, as the hardware would.
            return number(std::uint64_t(op == "/" ? a.asSigned() / b.asSigned() : a.asSigned() % b.asSigned()));
        }
        if (op == "+")
            return number(a.bits + b.bits, isUnsigned);
        if (op == "-")
            return number(a.bits - b.bits, isUnsigned);
        if (op == "<<" || op == ">>") {
            const std::int64_t count = b.isUnsigned ? std::int64_t(std::min<std::uint64_t>(b.bits, 64)) : b.asSigned();
            if (count >= 64 || count <= -64)
                return number(op == ">>" && !a.isUnsigned && a.asSigned() < 0 ? ~0ull : 0, a.isUnsigned);
            const bool left = (op == "<<") == (count >= 0);
            const unsigned shift = unsigned(count < 0 ? -count : count);
            if (left)
                return number(a.bits << shift, a.isUnsigned);
            return a.isUnsigned ? number(a.bits >> shift, true) : number(std::uint64_t(a.asSigned() >> shift));
        }
        if (op == "<")
            return compare([](auto x, auto y) { return x < y; });
        if (op == ">")
            return compare([](auto x, auto y) { return x > y; });
        if (op == "<=")
            return compare([](auto x, auto y) { return x <= y; });
        if (op == ">=")
            return compare([](auto x, auto y) { return x >= y; });
        if (op == "==")
            return boolean(a.bits == b.bits);
        if (op == "!=")
            return boolean(a.bits != b.bits);
        if (op == "&")
            return number(a.bits & b.bits, isUnsigned);
        if (op == "^")
            return number(a.bits ^ b.bits, isUnsigned);
        if (op == "|")
            return number(a.bits | b.bits, isUnsigned);
        return b; // ","
    }

    Value unary(bool evaluate)
    {
        if (++m_depth > kMaxNesting)
            return fail("#if expression nested deeper than " + std::to_string(kMaxNesting) + " levels");
        Value value;
        if (at("+") || at("-") || at("~") || at("!")) {
            const std::string op = current()->text;
            ++m_pos;
            const Value operand = unary(evaluate);
            if (op == "+")
                value = operand;
            else if (op == "-")
                value = number(0 - operand.bits, operand.isUnsigned);
            else if (op == "~")
                value = number(~operand.bits, operand.isUnsigned);
            else
                value = boolean(!operand.truth());
        } else {
            value = primary(evaluate);
        }
        --m_depth;
        return value;
    }

    Value primary(bool evaluate)
    {
        const CudaToken *token = current();
        if (!token)
            return fail("#if expression ends too early");
        ++m_pos;
        switch (token->kind) {
        case Kind::Number: return integerLiteral(token->text);
        case Kind::Char: return characterLiteral(token->text);
        case Kind::String: return fail("a string in #if");
        case Kind::Identifier: return name(token->text);
        case Kind::Punctuator: break;
        }
        if (token->is("(")) {
            const Value value = parse(1, evaluate);
            if (!at(")"))
                return fail("missing ')' in #if");
            ++m_pos;
            return value;
        }
        return fail("unexpected '" + token->text + "' in #if");
    }

    Value name(const std::string &text)
    {
        if (text == "defined") {
            const bool parenthesised = at("(");
            if (parenthesised)
                ++m_pos;
            const CudaToken *operand = current();
            if (!operand || operand->kind != Kind::Identifier)
                return fail("defined without a macro name in #if");
            ++m_pos;
            if (parenthesised) {
                if (!at(")"))
                    return fail("missing ')' after defined in #if");
                ++m_pos;
            }
            return boolean(m_state.find(operand->text) != nullptr);
        }
        if (text == "true")
            return boolean(true);
        if (at("(")) {
            // __has_builtin(x) and its kind: NVRTC's answer is unknown here, so as if it had nothing.
            if (text.rfind("__has_", 0) != 0 && text != "__CUDA_ARCH_HAS_FEATURE__")
                return fail("#if calls " + text + ", which is no macro");
            for (int depth = 0; m_pos < m_tokens.size(); ++m_pos) {
                if (at("("))
                    ++depth;
                else if (at(")") && --depth == 0)
                    break;
            }
            if (!at(")"))
                return fail("missing ')' in #if");
            ++m_pos;
        }
        return boolean(false); // Any other name, false included.
    }

    Value integerLiteral(std::string text)
    {
        std::erase(text, '\'');
        std::size_t end = text.size();
        bool isUnsigned = false;
        while (end > 0 && std::string("uUlLzZ").find(text[end - 1]) != std::string::npos) {
            isUnsigned = isUnsigned || text[end - 1] == 'u' || text[end - 1] == 'U';
            --end;
        }
        text.resize(end);
        int base = 10;
        std::size_t i = 0;
        if (text.size() > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
            base = 16;
            i = 2;
        } else if (text.size() > 1 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) {
            base = 2;
            i = 2;
        } else if (text.size() > 1 && text[0] == '0') {
            base = 8;
            i = 1;
        }
        if (i == text.size() && base != 8)
            return fail("'" + text + "' is not an integer (#if takes integers only)");
        std::uint64_t value = 0;
        for (; i < text.size(); ++i) {
            const char c = char(std::tolower(static_cast<unsigned char>(text[i])));
            const int digit = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                              : c >= 'a' && c <= 'f'                      ? c - 'a' + 10
                                                                          : 99;
            if (digit >= base)
                return fail("'" + text + "' is not an integer (#if takes integers only)");
            if (value > (std::numeric_limits<std::uint64_t>::max() - std::uint64_t(digit)) / std::uint64_t(base))
                return fail("integer '" + text + "' too large for #if");
            value = value * std::uint64_t(base) + std::uint64_t(digit);
        }
        // Too large for a signed 64-bit value: unsigned, as compilers take it.
        return number(value, isUnsigned || value > std::uint64_t(std::numeric_limits<std::int64_t>::max()));
    }

    Value characterLiteral(const std::string &text)
    {
        const auto open = text.find('\'');
        const auto close = text.rfind('\'');
        if (open == std::string::npos || close <= open)
            return fail("bad character literal in #if");
        const bool plain = open == 0;
        std::uint64_t value = 0;
        int count = 0;
        for (std::size_t i = open + 1; i < close; ++count) {
            std::uint64_t c = static_cast<unsigned char>(text[i++]);
            if (c == '\\' && i < close) {
                const char e = text[i++];
                switch (e) {
                case 'n': c = '\n'; break;
                case 't': c = '\t'; break;
                case 'r': c = '\r'; break;
                case 'a': c = '\a'; break;
                case 'b': c = '\b'; break;
                case 'f': c = '\f'; break;
                case 'v': c = '\v'; break;
                case 'x':
                    c = 0;
                    while (i < close && std::isxdigit(static_cast<unsigned char>(text[i])))
                        c = c * 16
                            + std::uint64_t(std::isdigit(static_cast<unsigned char>(text[i]))
                                                ? text[i] - '0'
                                                : std::tolower(static_cast<unsigned char>(text[i])) - 'a' + 10),
                        ++i;
                    break;
                default:
                    if (e >= '0' && e <= '7') {
                        c = std::uint64_t(e - '0');
                        for (int digits = 1; digits < 3 && i < close && text[i] >= '0' && text[i] <= '7'; ++digits)
                            c = c * 8 + std::uint64_t(text[i++] - '0');
                    } else {
                        c = static_cast<unsigned char>(e);
                    }
                }
            }
            value = (value << 8) | (c & 0xff);
        }
        // A plain one-character literal is a char, which is signed here.
        if (plain && count == 1)
            return number(std::uint64_t(std::int64_t(static_cast<signed char>(value & 0xff))));
        return number(value);
    }

    const std::vector<PpToken> &m_tokens;
    const CudaMacroState &m_state;
    int m_line;
    std::size_t m_pos = 0;
    int m_depth = 0;
    std::string m_error;
};

} // namespace

Expected<bool> evaluateCudaCondition(const std::vector<PpToken> &tokens, const CudaMacroState &state, int line)
{
    return ConditionParser(tokens, state, line).run();
}

} // namespace kx
