#include "core/eval/cudadeclarations.h"

#include <string_view>

namespace kx {
namespace {

using Kind = CudaToken::Kind;

// Specifiers written with a parenthesised argument before a declarator's name.
const std::set<std::string_view> kParenthesisedSpecifiers = {
    "__launch_bounds__", "__maxnreg__", "__cluster_dims__", "__align__", "alignas",
    "__attribute__",     "__declspec",  "decltype",         "__nv_register_params__"};

// Words that cannot name a declarator: "int (*f)(int)" declares f, not a function named int.
const std::set<std::string_view> kTypeWords = {
    "void",      "bool",       "char",       "short",    "int",             "long",         "float",
    "double",    "signed",     "unsigned",   "auto",     "const",           "volatile",     "static",
    "inline",    "extern",     "constexpr",  "__device__", "__global__",    "__host__",     "__forceinline__",
    "__noinline__", "__constant__", "__shared__", "__managed__", "__restrict__", "typename", "struct",
    "class",     "union",      "enum"};

class Scanner
{
public:
    explicit Scanner(const CudaTokens &tokens) : m_tokens(tokens.tokens), m_macros(tokens.macros) {}

    std::vector<CudaDeclaration> run()
    {
        scanScope(false, false);
        return std::move(m_result);
    }

private:
    bool is(std::size_t i, const char *text) const { return i < m_tokens.size() && m_tokens[i].is(text); }

    bool isIdentifier(std::size_t i) const
    {
        return i < m_tokens.size() && m_tokens[i].kind == Kind::Identifier;
    }

    bool isOpener(std::size_t i) const { return is(i, "(") || is(i, "[") || is(i, "{"); }
    bool isCloser(std::size_t i) const { return is(i, ")") || is(i, "]") || is(i, "}"); }

    // i is at ( [ or {: returns the index after its partner (or the end of input).
    std::size_t skipBalanced(std::size_t i) const
    {
        int depth = 0;
        for (; i < m_tokens.size(); ++i) {
            if (isOpener(i))
                ++depth;
            else if (isCloser(i) && --depth == 0)
                return i + 1;
        }
        return i;
    }

    // i is at "<" of a template argument or parameter list.
    std::size_t skipAngles(std::size_t i) const
    {
        int depth = 0;
        while (i < m_tokens.size()) {
            if (isOpener(i)) {
                i = skipBalanced(i);
                continue;
            }
            if (is(i, ";") || isCloser(i))
                return i;
            if (is(i, "<"))
                ++depth;
            else if (is(i, ">") && --depth == 0)
                return i + 1;
            ++i;
        }
        return i;
    }

    // Past the next ";" of this scope, or up to the "}" that closes it.
    std::size_t skipStatement(std::size_t i) const
    {
        while (i < m_tokens.size()) {
            if (isOpener(i)) {
                i = skipBalanced(i);
            } else if (is(i, ";")) {
                return i + 1;
            } else if (is(i, "}")) {
                return i;
            } else {
                ++i;
            }
        }
        return i;
    }

    // For constructs this reader does not know: up to ";" or past a braced block (and its ";").
    std::size_t skipUnknown(std::size_t i) const
    {
        while (i < m_tokens.size()) {
            if (is(i, "{")) {
                i = skipBalanced(i);
                return is(i, ";") ? i + 1 : i;
            }
            if (is(i, "(") || is(i, "[")) {
                i = skipBalanced(i);
            } else if (is(i, ";")) {
                return i + 1;
            } else if (is(i, "}")) {
                return i;
            } else {
                ++i;
            }
        }
        return i;
    }

    void addSpecifier(std::set<std::string> &specifiers, const std::string &word, int depth = 0) const
    {
        specifiers.insert(word);
        const auto macro = m_macros.find(word);
        if (macro == m_macros.end() || depth > 8)
            return;
        for (const std::string &inner : macro->second.identifiers)
            addSpecifier(specifiers, inner, depth + 1);
    }

    bool isFunctionLikeMacro(std::size_t i) const
    {
        const auto macro = m_macros.find(m_tokens[i].text);
        return macro != m_macros.end() && macro->second.functionLike && is(i + 1, "(");
    }

    void scanScope(bool inBraces, bool cLinkage)
    {
        while (m_pos < m_tokens.size()) {
            const CudaToken &token = m_tokens[m_pos];
            if (token.is("}")) {
                ++m_pos;
                if (inBraces)
                    return;
            } else if (token.is(";")) {
                ++m_pos;
            } else if (token.is("namespace")) {
                std::size_t i = m_pos + 1;
                while (i < m_tokens.size() && !is(i, "{") && !is(i, ";"))
                    ++i;
                m_pos = i + 1;
                if (is(i, "{"))
                    scanScope(true, cLinkage);
            } else if (token.is("extern") && m_pos + 2 < m_tokens.size()
                       && m_tokens[m_pos + 1].kind == Kind::String && is(m_pos + 2, "{")) {
                const bool isC = m_tokens[m_pos + 1].text == "\"C\"";
                m_pos += 3;
                scanScope(true, cLinkage || isC);
            } else if (token.is("template")) {
                ++m_pos;
                if (is(m_pos, "<"))
                    m_pos = skipAngles(m_pos);
            } else if (token.is("typedef") || token.is("using") || token.is("static_assert") || token.is("asm")
                       || token.is("__asm__")) {
                m_pos = skipStatement(m_pos);
            } else if (token.is("struct") || token.is("class") || token.is("union") || token.is("enum")) {
                scanTypeOrDeclaration(cLinkage);
            } else if (token.kind == Kind::Identifier && isFunctionLikeMacro(m_pos)) {
                m_pos = skipBalanced(m_pos + 1);
            } else {
                m_pos = scanDeclaration(m_pos, cLinkage);
            }
        }
    }

    // "struct S { ... };" defines a type; "struct S *make()" declares a function returning one.
    void scanTypeOrDeclaration(bool cLinkage)
    {
        std::size_t i = m_pos + 1;
        while (i < m_tokens.size() && !is(i, "{") && !is(i, ";") && !is(i, "(") && !is(i, "}")) {
            if (is(i, "<"))
                i = skipAngles(i);
            else
                ++i;
        }
        if (is(i, "{"))
            m_pos = skipStatement(skipBalanced(i));
        else if (is(i, ";"))
            m_pos = i + 1;
        else
            m_pos = scanDeclaration(m_pos, cLinkage);
    }

    std::string qualifiedName(std::size_t i) const
    {
        std::string name = m_tokens[i].text;
        while (i >= 2 && is(i - 1, "::") && isIdentifier(i - 2)) {
            i -= 2;
            name = m_tokens[i].text + "::" + name;
        }
        return name;
    }

    std::size_t scanDeclaration(std::size_t start, bool cLinkage)
    {
        CudaDeclaration declaration;
        declaration.cLinkage = cLinkage;
        std::vector<std::size_t> words;     // Identifier tokens seen before the name.
        std::size_t lastIdentifier = std::string::npos;
        std::size_t i = start;
        bool found = false;

        while (i < m_tokens.size() && !found) {
            const CudaToken &token = m_tokens[i];
            if (token.kind == Kind::String) {
                if (i > start && is(i - 1, "extern") && token.text == "\"C\"")
                    declaration.cLinkage = true;
                lastIdentifier = std::string::npos;
                ++i;
            } else if (token.kind == Kind::Identifier) {
                if (token.text == "operator") {
                    std::size_t j = i + 1;
                    std::string name = "operator";
                    if (is(j, "(") && is(j + 1, ")")) {
                        name += "()";
                        j += 2;
                    }
                    while (j < m_tokens.size() && !is(j, "(") && !is(j, ";") && !is(j, "{")) {
                        name += (m_tokens[j].kind == Kind::Identifier ? " " : "") + m_tokens[j].text;
                        ++j;
                    }
                    if (!is(j, "("))
                        break;
                    declaration.kind = CudaDeclaration::Kind::Function;
                    declaration.name = name;
                    declaration.line = token.line;
                    declaration.paramsBegin = j + 1;
                    i = skipBalanced(j);
                    declaration.paramsEnd = i - 1;
                    found = true;
                } else if (kParenthesisedSpecifiers.count(token.text) && is(i + 1, "(")) {
                    words.push_back(i);
                    i = skipBalanced(i + 1);
                    lastIdentifier = std::string::npos;
                } else if (isFunctionLikeMacro(i)) {
                    words.push_back(i);
                    i = skipBalanced(i + 1);
                    lastIdentifier = std::string::npos;
                } else {
                    words.push_back(i);
                    lastIdentifier = i++;
                }
            } else if (token.is("(")) {
                if (lastIdentifier != std::string::npos && !kTypeWords.count(m_tokens[lastIdentifier].text)) {
                    declaration.kind = CudaDeclaration::Kind::Function;
                    declaration.name = qualifiedName(lastIdentifier);
                    declaration.line = m_tokens[lastIdentifier].line;
                    declaration.paramsBegin = i + 1;
                    i = skipBalanced(i);
                    declaration.paramsEnd = i - 1;
                    words.pop_back();
                    found = true;
                } else {
                    i = skipBalanced(i);
                    lastIdentifier = std::string::npos;
                }
            } else if (token.is("[") && is(i + 1, "[")) {
                i = skipBalanced(i);            // [[attribute]]
            } else if (token.is("=") || token.is(";") || token.is("{") || token.is("[") || token.is(",")) {
                if (lastIdentifier == std::string::npos || kTypeWords.count(m_tokens[lastIdentifier].text))
                    break;
                declaration.kind = CudaDeclaration::Kind::Variable;
                declaration.name = qualifiedName(lastIdentifier);
                declaration.line = m_tokens[lastIdentifier].line;
                words.pop_back();
                found = true;
            } else if (token.is("<") && lastIdentifier != std::string::npos) {
                i = skipAngles(i);              // Template arguments of a type.
                lastIdentifier = std::string::npos;
            } else if (token.is("}") || token.is(":")) {
                break;
            } else {
                if (!token.is("::"))
                    lastIdentifier = std::string::npos;
                ++i;
            }
        }
        if (!found)
            return skipUnknown(i);

        for (std::size_t word : words)
            addSpecifier(declaration.specifiers, m_tokens[word].text);
        if (declaration.has(kExternCMarker))
            declaration.cLinkage = true;
        if (declaration.kind == CudaDeclaration::Kind::Function) {
            // Trailing parts (const, noexcept(...), -> type, = delete) up to a body or ";".
            while (i < m_tokens.size() && !is(i, "{") && !is(i, ";") && !is(i, "=") && !is(i, "}")) {
                if (is(i, "(") || is(i, "["))
                    i = skipBalanced(i);
                else
                    ++i;
            }
            if (is(i, "{")) {
                declaration.definition = true;
                i = skipBalanced(i);
            } else {
                i = skipStatement(i);
            }
        } else {
            i = skipStatement(i);
        }
        m_result.push_back(std::move(declaration));
        return i;
    }

    const std::vector<CudaToken> &m_tokens;
    const std::map<std::string, CudaMacro> &m_macros;
    std::size_t m_pos = 0;
    std::vector<CudaDeclaration> m_result;
};

} // namespace

std::vector<CudaDeclaration> scanDeclarations(const CudaTokens &tokens)
{
    return Scanner(tokens).run();
}

} // namespace kx
