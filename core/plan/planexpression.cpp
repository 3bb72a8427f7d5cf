// evaluateIntExpression(): launch plan expressions, evaluated by muParser with integer operators.
#include "core/plan/launchplan.h"

#include <muParserBase.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace kx {
namespace {

// Doubles hold integers exactly up to 2^53; muParser computes in double, so nothing may go beyond.
constexpr std::int64_t kMaxExact = std::int64_t(1) << 53;

struct ExpressionError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

std::int64_t toInteger(double value)
{
    if (!std::isfinite(value) || value != std::trunc(value))
        throw ExpressionError("non-integer result");
    if (std::fabs(value) > double(kMaxExact))
        throw ExpressionError("value exceeds 2^53");
    return static_cast<std::int64_t>(value);
}

double checked(std::int64_t value)
{
    if (value > kMaxExact || value < -kMaxExact)
        throw ExpressionError("intermediate value " + std::to_string(value) + " exceeds 2^53");
    return double(value);
}

std::int64_t divisor(double value)
{
    const std::int64_t b = toInteger(value);
    if (b == 0)
        throw ExpressionError("division by zero");
    return b;
}

double add(double a, double b)
{
    return checked(toInteger(a) + toInteger(b));
}
double subtract(double a, double b)
{
    return checked(toInteger(a) - toInteger(b));
}
double negate(double a)
{
    return checked(-toInteger(a));
}
double identity(double a)
{
    return checked(toInteger(a));
}

double multiply(double a, double b)
{
    std::int64_t product = 0;
    if (__builtin_mul_overflow(toInteger(a), toInteger(b), &product))
        throw ExpressionError("intermediate value exceeds 2^53");
    return checked(product);
}

// C++ semantics: the quotient is truncated toward zero, the remainder has the dividend's sign.
double divide(double a, double b)
{
    const std::int64_t d = divisor(b);
    return checked(toInteger(a) / d);
}

double modulo(double a, double b)
{
    const std::int64_t d = divisor(b);
    return checked(toInteger(a) % d);
}

double ceilDiv(double a, double b)
{
    const std::int64_t d = divisor(b);
    const std::int64_t n = toInteger(a);
    std::int64_t quotient = n / d;
    if (n % d != 0 && ((n < 0) == (d < 0)))
        ++quotient;
    return checked(quotient);
}

double minimum(double a, double b)
{
    return checked(std::min(toInteger(a), toInteger(b)));
}
double maximum(double a, double b)
{
    return checked(std::max(toInteger(a), toInteger(b)));
}

// Decimal integer literals only; the lexer below has already rejected anything else.
int readInteger(const mu::char_type *text, int *position, mu::value_type *value)
{
    int length = 0;
    std::int64_t number = 0;
    while (std::isdigit(static_cast<unsigned char>(text[length]))) {
        if (number > kMaxExact)
            return 0;
        number = number * 10 + (text[length] - '0');
        ++length;
    }
    if (length == 0 || number > kMaxExact)
        return 0;
    *position += length;
    *value = double(number);
    return 1;
}

// muParser's base with only integer operators and functions: no floating-point built-ins, constants
// or comparison operators.
class IntegerParser : public mu::ParserBase
{
public:
    IntegerParser()
    {
        AddValIdent(readInteger);
        InitCharSets();
        InitFun();
        InitConst();
        InitOprt();
    }

protected:
    void InitCharSets() override
    {
        DefineNameChars("0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
        DefineOprtChars("+-*/%");
        DefineInfixOprtChars("+-");
    }

    void InitFun() override
    {
        DefineFun("min", minimum);
        DefineFun("max", maximum);
        DefineFun("ceil_div", ceilDiv);
    }

    void InitConst() override {}

    void InitOprt() override
    {
        EnableBuiltInOprt(false);
        DefineInfixOprt("-", negate);
        DefineInfixOprt("+", identity);
        DefineOprt("+", add, mu::prADD_SUB);
        DefineOprt("-", subtract, mu::prADD_SUB);
        DefineOprt("*", multiply, mu::prMUL_DIV);
        DefineOprt("/", divide, mu::prMUL_DIV);
        DefineOprt("%", modulo, mu::prMUL_DIV);
    }
};

bool isNameStart(char c)
{
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool isNameChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

std::string quote(const std::string &text)
{
    return "'" + text + "'";
}

struct Scanned
{
    std::string text;                   // For muParser: no blanks between a function name and "(".
    std::map<std::string, double> used; // The shape symbols the expression uses.
};

// Checks the characters, literals and names before muParser sees the text, so that errors name the
// offending symbol.
Expected<Scanned> scan(const std::string &expression, const ShapeSet &symbols)
{
    Scanned scanned;
    std::map<std::string, double> &used = scanned.used;
    std::vector<std::string> unknown;
    bool empty = true;
    for (std::size_t i = 0; i < expression.size();) {
        const char c = expression[i];
        if (std::isspace(static_cast<unsigned char>(c))) {
            scanned.text += ' ';
            ++i;
            continue;
        }
        empty = false;
        if (std::isdigit(static_cast<unsigned char>(c))) {
            std::size_t end = i;
            while (end < expression.size()
                   && (isNameChar(expression[end]) || expression[end] == '.'
                       || ((expression[end] == '+' || expression[end] == '-') && end > i
                           && (expression[end - 1] == 'e' || expression[end - 1] == 'E')))) {
                ++end;
            }
            const std::string literal = expression.substr(i, end - i);
            if (literal.find_first_not_of("0123456789") != std::string::npos) {
                const bool decimal = literal.find_first_not_of("0123456789.eE+-") == std::string::npos;
                return Error{decimal ? "non-integer literal " + quote(literal) + " (expressions are integer arithmetic)"
                                     : "bad number " + quote(literal)};
            }
            if (literal.size() > 16 || std::stoll(literal) > kMaxExact)
                return Error{"literal " + literal + " exceeds 2^53"};
            scanned.text += literal;
            i = end;
        } else if (isNameStart(c)) {
            std::size_t end = i;
            while (end < expression.size() && isNameChar(expression[end]))
                ++end;
            const std::string name = expression.substr(i, end - i);
            std::size_t next = end;
            while (next < expression.size() && std::isspace(static_cast<unsigned char>(expression[next])))
                ++next;
            if (next < expression.size() && expression[next] == '(') {
                if (name != "min" && name != "max" && name != "ceil_div")
                    return Error{"unknown function " + quote(name) + " (known: min, max, ceil_div)"};
                scanned.text += name;
                i = next;
                continue;
            } else if (const auto symbol = symbols.find(name); symbol != symbols.end()) {
                if (symbol->second > kMaxExact || symbol->second < -kMaxExact)
                    return Error{"symbol " + name + " = " + std::to_string(symbol->second) + " exceeds 2^53"};
                used[name] = double(symbol->second);
            } else if (std::find(unknown.begin(), unknown.end(), name) == unknown.end()) {
                unknown.push_back(name);
            }
            scanned.text += name;
            i = end;
        } else if (std::string("+-*/%(),").find(c) != std::string::npos) {
            scanned.text += c;
            ++i;
        } else {
            return Error{"unexpected character " + quote(std::string(1, c))};
        }
    }
    if (empty)
        return Error{"empty expression"};
    if (!unknown.empty()) {
        std::string names;
        for (const std::string &name : unknown)
            names += (names.empty() ? "" : ", ") + quote(name);
        std::string known;
        for (const auto &[name, value] : symbols)
            known += (known.empty() ? "" : ", ") + name;
        return Error{(unknown.size() == 1 ? "unknown symbol " : "unknown symbols ") + names
                     + (known.empty() ? " (no shape symbols defined)" : " (known: " + known + ")")};
    }
    return scanned;
}

} // namespace

Expected<std::int64_t> evaluateIntExpression(const std::string &expression, const ShapeSet &symbols)
{
    auto scanned = scan(expression, symbols);
    if (!scanned)
        return scanned.error();
    try {
        IntegerParser parser;
        for (auto &[name, value] : scanned->used)
            parser.DefineVar(name, &value);
        parser.SetExpr(scanned->text);
        const double value = parser.Eval();
        if (parser.GetNumResults() != 1)
            return Error{"one expression expected, found " + std::to_string(parser.GetNumResults())};
        return toInteger(value);
    } catch (const mu::ParserError &error) {
        return Error{error.GetMsg()};
    } catch (const ExpressionError &error) {
        return Error{error.what()};
    }
}

} // namespace kx
