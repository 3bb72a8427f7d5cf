#include "core/plan/cudatokenreader.h"

#include <set>
#include <string_view>

namespace kx {
namespace {

using Kind = CudaToken::Kind;

// Specifiers written with a parenthesised argument before a declarator's name.
const std::set<std::string_view> kParenthesisedSpecifiers = {
    "__launch_bounds__", "__maxnreg__", "__cluster_dims__", "__align__",    "alignas",          "__attribute__",
    "__declspec",        "decltype",    "__location__",     "__annotate__", "__builtin_align__"};

// Words that qualify a type or pointer without naming anything.
const std::set<std::string_view> kQualifierWords = {"const", "volatile", "__restrict__", "__restrict", "restrict"};

// What may follow a function's parameter list before its body or the end of the declarator.
const std::set<std::string_view> kFunctionSuffixWords = {"const",    "volatile", "override",     "final",
                                                         "noexcept", "throw",    "__restrict__", "__restrict"};

bool isOpener(const CudaToken &token)
{
    return token.is("(") || token.is("[") || token.is("{");
}

bool isCloser(const CudaToken &token)
{
    return token.is(")") || token.is("]") || token.is("}");
}

} // namespace

std::size_t CudaTokenReader::skipBalanced(std::size_t i) const
{
    if (i >= size() || !isOpener(m_tokens[i]))
        return i + 1;
    std::size_t depth = 0;
    for (; i < size(); ++i) {
        if (isOpener(m_tokens[i]))
            ++depth;
        else if (isCloser(m_tokens[i]) && --depth == 0)
            return i + 1;
    }
    return i;
}

std::size_t CudaTokenReader::skipAngles(std::size_t i) const
{
    std::size_t depth = 0;
    while (i < size()) {
        if (isOpener(m_tokens[i])) {
            i = skipBalanced(i);
            continue;
        }
        if (is(i, ";") || isCloser(m_tokens[i]))
            return i;
        if (is(i, "<"))
            ++depth;
        else if (is(i, ">") && --depth == 0)
            return i + 1;
        ++i;
    }
    return i;
}

std::size_t CudaTokenReader::skipStatement(std::size_t i) const
{
    while (i < size()) {
        if (isOpener(m_tokens[i]))
            i = skipBalanced(i);
        else if (is(i, ";"))
            return i + 1;
        else if (is(i, "}"))
            return i;
        else
            ++i;
    }
    return i;
}

std::size_t CudaTokenReader::skipUnknown(std::size_t i) const
{
    while (i < size()) {
        if (is(i, "{")) {
            i = skipBalanced(i);
            return is(i, ";") ? i + 1 : i;
        }
        if (is(i, "(") || is(i, "["))
            i = skipBalanced(i);
        else if (is(i, ";"))
            return i + 1;
        else if (is(i, "}"))
            return i;
        else
            ++i;
    }
    return i;
}

std::size_t CudaTokenReader::operatorEnd(std::size_t i) const
{
    std::size_t j = i + 1;
    if ((is(j, "(") && is(j + 1, ")")) || (is(j, "[") && is(j + 1, "]")))
        return j + 2;
    if (is(j, "new") || is(j, "delete"))
        return is(j + 1, "[") && is(j + 2, "]") ? j + 3 : j + 1;
    if (j < size() && m_tokens[j].kind == Kind::String) // A literal operator: operator "" _km.
        return isIdentifier(j + 1) ? j + 2 : j + 1;
    // A symbol (+, <<=, ...) or a conversion's type: up to the parameter list.
    do {
        ++j;
    } while (j < size() && !is(j, "(") && !is(j, ";") && !is(j, "{") && !is(j, "}"));
    return j;
}

std::size_t CudaTokenReader::nameEnd(std::size_t i) const
{
    std::size_t j = i;
    if (is(j, "::"))
        ++j;
    for (;;) {
        if (is(j, "~") && isIdentifier(j + 1))
            return j + 2;
        if (is(j, "operator"))
            return operatorEnd(j);
        if (!isIdentifier(j))
            return j == i || is(j - 1, "::") ? i : j;
        ++j;
        if (is(j, "<")) {
            const std::size_t close = skipAngles(j);
            if (close > j && is(close - 1, ">"))
                j = close;
        }
        if (!is(j, "::") || is(j + 1, "*"))
            return j;
        ++j;
    }
}

std::string CudaTokenReader::nameText(std::size_t begin, std::size_t end) const
{
    std::string text;
    for (std::size_t i = begin; i < end; ++i) {
        if (is(i, "<") && text.rfind("operator", 0) != 0) {
            i = skipAngles(i) - 1;
            continue;
        }
        if (isIdentifier(i) && !text.empty() && isIdentifier(i - 1))
            text += ' ';
        text += m_tokens[i].text;
    }
    return text;
}

std::string CudaTokenReader::lastComponent(std::size_t begin, std::size_t end) const
{
    std::string last;
    for (std::size_t i = begin; i < end; ++i) {
        if (is(i, "<")) {
            i = skipAngles(i) - 1;
            continue;
        }
        if (isIdentifier(i))
            last = m_tokens[i].text;
    }
    return last;
}

bool CudaTokenReader::isConstructorName(std::size_t begin, std::size_t end) const
{
    std::vector<std::string> components;
    for (std::size_t i = begin; i < end; ++i) {
        if (is(i, "<")) {
            i = skipAngles(i) - 1;
            continue;
        }
        if (isIdentifier(i))
            components.push_back(m_tokens[i].text);
    }
    return components.size() >= 2 && components.back() == components[components.size() - 2];
}

bool CudaTokenReader::isParenthesisedSpecifier(const std::string &word)
{
    return kParenthesisedSpecifiers.count(word) > 0;
}

bool CudaTokenReader::readDeclarator(std::size_t i, CudaDeclarator &declarator) const
{
    // Pointer operators seen at each level of parentheses before the name.
    struct Level
    {
        bool pointer = false;
        bool reference = false;
        bool pointerConst = false;
    };
    std::vector<Level> levels(1);
    while (declarator.name.empty()) {
        if (i >= size())
            return false;
        Level &level = levels.back();
        if (is(i, "(")) {
            levels.emplace_back();
            ++i;
        } else if (is(i, "*") || is(i, "^")) {
            level = {true, false, false};
            ++i;
        } else if (is(i, "&")) {
            level = {false, true, false};
            ++i;
        } else if (isIdentifier(i) && kQualifierWords.count(m_tokens[i].text)) {
            level.pointerConst = level.pointerConst || (level.pointer && is(i, "const"));
            ++i;
        } else if (is(i, "[") && is(i + 1, "[")) {
            i = skipBalanced(i);
        } else if (isIdentifier(i) && isParenthesisedSpecifier(m_tokens[i].text) && is(i + 1, "(")) {
            i = skipBalanced(i + 1);
        } else if (isIdentifier(i) || is(i, "::") || is(i, "~")) {
            const std::size_t end = nameEnd(i);
            if (end == i)
                return false;
            if (is(end, "::") && is(end + 1, "*")) { // A pointer to member: "C::*pm".
                level = {true, false, false};
                i = end + 2;
                continue;
            }
            declarator.name = nameText(i, end);
            declarator.line = m_tokens[i].line;
            i = end;
        } else {
            return false;
        }
    }

    // Suffixes bind tighter than the pointer operators of their level: "(*f)(int)" is a pointer, "*f(int)" a
    // function; parentheses without a pointer operator ("(main)()") change nothing.
    bool decided = false;
    const auto decide = [&](const Level &level) {
        decided = true;
        declarator.pointer = level.pointer;
        declarator.reference = level.reference;
        declarator.pointerConst = level.pointerConst;
    };
    for (;;) {
        if (is(i, "(")) {
            const std::size_t close = skipBalanced(i);
            if (!decided) {
                decided = true;
                declarator.function = true;
                declarator.paramsBegin = i + 1;
                declarator.paramsEnd = close - 1;
            }
            i = close;
        } else if (is(i, "[")) {
            if (!decided)
                decide(levels.back());
            i = skipBalanced(i);
        } else if (is(i, ")") && levels.size() > 1) {
            if (!decided && (levels.back().pointer || levels.back().reference))
                decide(levels.back());
            levels.pop_back();
            ++i;
        } else if (declarator.function && decided && isIdentifier(i) && kFunctionSuffixWords.count(m_tokens[i].text)) {
            ++i;
            if (is(i, "("))
                i = skipBalanced(i);
        } else if (declarator.function && decided && is(i, "&")) {
            ++i; // A ref-qualifier.
        } else if ((is(i, "[") && is(i + 1, "[")) || (isIdentifier(i) && isParenthesisedSpecifier(m_tokens[i].text))) {
            i = is(i, "[") ? skipBalanced(i) : is(i + 1, "(") ? skipBalanced(i + 1) : i + 1;
        } else if (levels.size() == 1 && declarator.function && is(i, "-") && is(i + 1, ">")) {
            // A trailing return type, up to the body or the end of the declarator.
            i += 2;
            while (i < size() && !is(i, "{") && !is(i, ";") && !is(i, "=") && !is(i, ",") && !is(i, "}")) {
                if (is(i, "<"))
                    i = skipAngles(i);
                else if (is(i, "(") || is(i, "["))
                    i = skipBalanced(i);
                else
                    ++i;
            }
        } else if (levels.size() == 1) {
            break;
        } else {
            return false;
        }
    }
    if (!decided)
        decide(levels.back());
    declarator.end = i;
    return true;
}

std::size_t CudaTokenReader::skipFunctionTail(std::size_t i) const
{
    const bool tryBlock = is(i, "try");
    if (tryBlock)
        ++i;
    if (is(i, ":")) {
        // Constructor initializers: "name(args)" or "name{args}", with commas and pack expansions.
        ++i;
        for (;;) {
            const std::size_t end = nameEnd(i);
            if (end == i || !(is(end, "(") || is(end, "{")))
                return std::string::npos;
            i = skipBalanced(end);
            while (is(i, "."))
                ++i;
            if (!is(i, ","))
                break;
            ++i;
        }
    }
    if (!is(i, "{"))
        return std::string::npos;
    i = skipBalanced(i);
    while (tryBlock && is(i, "catch") && is(i + 1, "(")) {
        i = skipBalanced(i + 1);
        if (is(i, "{"))
            i = skipBalanced(i);
    }
    return i;
}

std::size_t CudaTokenReader::skipInitializer(std::size_t i) const
{
    if (is(i, "{"))
        return skipBalanced(i);
    if (!is(i, "=") && !is(i, ":"))
        return i;
    ++i;
    while (i < size() && !is(i, ",") && !is(i, ";") && !is(i, "}")) {
        if (isOpener(m_tokens[i]))
            i = skipBalanced(i);
        else
            ++i;
    }
    return i;
}

} // namespace kx
