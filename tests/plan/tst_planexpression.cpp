// Integer expressions of launch plans: symbols, operators, functions, and what is refused (unknown names, division
// by zero, literals and values beyond 2^53, malformed text).
#include "core/plan/launchplan.h"

#include <doctest/doctest.h>

#include <sstream>
#include <string>

using namespace kx;

namespace {

std::string trimmed(const std::string &text)
{
    const auto first = text.find_first_not_of(' ');
    if (first == std::string::npos)
        return {};
    return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

// "N=4096,M=3" -> {N: 4096, M: 3}.
ShapeSet shapesFrom(const std::string &text)
{
    ShapeSet shapes;
    std::istringstream pairs(text);
    std::string pair;
    while (std::getline(pairs, pair, ',')) {
        if (pair.empty())
            continue;
        const auto equals = pair.find('=');
        shapes[trimmed(pair.substr(0, equals))] = std::stoll(pair.substr(equals + 1));
    }
    return shapes;
}

} // namespace

TEST_CASE("evaluates integer expressions")
{
    const struct
    {
        const char *name;
        const char *expression;
        const char *symbols;
        long long expected;
    } rows[] = {
        {"symbol", "N", "N=4096", 4096LL},
        {"literal", "256", "", 256LL},
        {"ceil_div exact", "ceil_div(N, 256)", "N=4096", 16LL},
        {"ceil_div rounds up", "ceil_div(N + 1, 256)", "N=4096", 17LL},
        {"ceil_div negative dividend", "ceil_div(-7, 2)", "", -3LL},
        {"ceil_div negative divisor", "ceil_div(7, -2)", "", -3LL},
        {"ceil_div both negative", "ceil_div(-7, -2)", "", 4LL},
        {"ceil_div with blank before parenthesis", "ceil_div (N, 3)", "N=10", 4LL},
        {"integer division truncates", "7 / 2", "", 3LL},
        {"division truncates toward zero", "-7 / 2", "", -3LL},
        {"remainder", "N % 3", "N=10", 1LL},
        {"remainder of negative", "-7 % 3", "", -1LL},
        {"min", "min(N, 1024)", "N=4096", 1024LL},
        {"max", "max(1, M - 5)", "M=3", 1LL},
        {"nested functions", "min(max(N, 1), ceil_div(M, 2))", "N=4096,M=3", 2LL},
        {"precedence", "1 + 2 * 3", "", 7LL},
        {"parentheses", "(1 + 2) * 3", "", 9LL},
        {"subtraction is left associative", "10 - 2 - 3", "", 5LL},
        {"division is left associative", "100 / 10 / 5", "", 2LL},
        {"division before multiplication", "N / 256 * 256", "N=1000", 768LL},
        {"unary minus", "-N + 1", "N=4096", -4095LL},
        {"unary plus", "+5", "", 5LL},
        {"negated factor", "2 * -3", "", -6LL},
        {"bytes of a large tensor", "4 * B * N * D", "B=16,N=4096,D=4096", 1073741824LL},
        {"2^53 exactly", "9007199254740992", "", 9007199254740992LL},
        {"large intermediate divided back", "N * N * N * N / N", "N=4096", 68719476736LL},
        {"blanks", "  N  ", "N=3", 3LL},
        {"constants only", "min(ceil_div(10, 4), 7) * 2", "", 6LL},
        {"underscored symbol", "batch_size * 2", "batch_size=8", 16LL},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            const auto value = evaluateIntExpression(row.expression, shapesFrom(row.symbols));
            REQUIRE_MESSAGE(value, (value ? "" : value.error().message));
            CHECK((long long)(*value) == row.expected);
        }
    }
}

TEST_CASE("bad expressions are refused with a reason")
{
    const struct
    {
        const char *name;
        const char *expression;
        const char *symbols;
        const char *expected;
    } rows[] = {
        {"unknown symbol", "ceil_div(M2, 256)", "N=4096,M=3", "unknown symbol 'M2' (known: M, N)"},
        {"unknown symbols", "N + K * Q", "N=4096", "unknown symbols 'K', 'Q'"},
        {"unknown function", "sin(N)", "N=1", "unknown function 'sin'"},
        {"division by zero", "N / 0", "N=1", "division by zero"},
        {"division by zero symbol", "N / (M - 3)", "N=1,M=3", "division by zero"},
        {"remainder by zero", "N % (M - 3)", "N=1,M=3", "division by zero"},
        {"ceil_div by zero", "ceil_div(N, 0)", "N=1", "division by zero"},
        {"constant ceil_div by zero", "ceil_div(1, 0)", "", "division by zero"},
        {"decimal literal", "N * 0.5", "N=4", "non-integer literal '0.5'"},
        {"exponent literal", "1e3", "", "non-integer literal '1e3'"},
        {"hex literal", "0x10", "", "bad number '0x10'"},
        {"literal beyond 2^53", "9007199254740993", "", "literal 9007199254740993 exceeds 2^53"},
        {"product beyond 2^53", "N * N * N * N * N", "N=4096", "exceeds 2^53"},
        {"symbol beyond 2^53", "N", "N=9007199254740993", "symbol N = 9007199254740993 exceeds 2^53"},
        {"empty", "", "", "empty expression"},
        {"blank", "   ", "", "empty expression"},
        {"dangling operator", "N +", "N=1", "Unexpected end of expression"},
        {"two operands", "N M", "N=1,M=2", "Unexpected variable"},
        {"unexpected character", "N $ 2", "N=1", "unexpected character '$'"},
        {"comparison", "N > 2", "N=1", "unexpected character '>'"},
        {"too few arguments", "min(N)", "N=1", "Too few parameters"},
        {"too many arguments", "min(1, 2, 3)", "", "Too many parameters"},
        {"missing parenthesis", "(N", "N=1", "Missing parenthesis"},
        {"two expressions", "N, N", "N=1", "one expression expected, found 2"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            const auto value = evaluateIntExpression(row.expression, shapesFrom(row.symbols));
            REQUIRE_MESSAGE(!value, "got " << (value ? std::to_string(*value) : std::string()));
            CHECK_MESSAGE(value.error().message.find(row.expected) != std::string::npos,
                          "got: " << value.error().message);
        }
    }
}
