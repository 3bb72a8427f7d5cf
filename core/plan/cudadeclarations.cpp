#include "core/plan/cudadeclarations.h"

#include "core/plan/cudatokenreader.h"

#include <string_view>

namespace kx {
namespace {

using Kind = CudaToken::Kind;

// Namespaces, extern "C" blocks and types nested deeper than this are an error, not a deeper stack.
constexpr std::size_t kMaxScopes = 256;

// Words that specify a declaration without naming a type.
const std::set<std::string_view> kSpecifierWords = {"static",
                                                    "inline",
                                                    "extern",
                                                    "constexpr",
                                                    "consteval",
                                                    "constinit",
                                                    "thread_local",
                                                    "register",
                                                    "mutable",
                                                    "virtual",
                                                    "explicit",
                                                    "friend",
                                                    "typename",
                                                    "const",
                                                    "volatile",
                                                    "__device__",
                                                    "__global__",
                                                    "__host__",
                                                    "__shared__",
                                                    "__constant__",
                                                    "__managed__",
                                                    "__forceinline__",
                                                    "__noinline__",
                                                    "__inline__",
                                                    "__inline",
                                                    "__restrict__",
                                                    "__grid_constant__",
                                                    "__nv_register_params__"};

// Words that name (part of) a built-in type.
const std::set<std::string_view> kTypeWords = {"void",    "bool",     "char", "char8_t", "char16_t", "char32_t",
                                               "wchar_t", "short",    "int",  "long",    "float",    "double",
                                               "signed",  "unsigned", "auto", "__int128"};

bool isTypeKeyword(const CudaToken &token)
{
    return token.is("struct") || token.is("class") || token.is("union") || token.is("enum");
}

// What a declaration says before its declarators.
struct Specifiers
{
    std::set<std::string> words;
    bool cLinkage = false;
    bool member = false;
    std::string typeName; // Members: the type they belong to.
};

class Scanner : private CudaTokenReader
{
public:
    explicit Scanner(const std::vector<CudaToken> &tokens)
        : CudaTokenReader(tokens)
    {}

    Expected<std::vector<CudaDeclaration>> run()
    {
        while (m_pos < size() && m_error.empty()) {
            const std::size_t next = step();
            m_pos = next > m_pos ? next : m_pos + 1;
        }
        if (!m_error.empty())
            return Error{m_error};
        return std::move(m_result);
    }

private:
    struct Scope
    {
        enum class Kind { Namespace, Linkage, Type };
        Kind kind = Kind::Namespace;
        bool cLinkage = false;
        std::string typeName;
        Specifiers outer; // Types: what applies to the declarators after the closing brace.
    };

    bool inType() const { return !m_scopes.empty() && m_scopes.back().kind == Scope::Kind::Type; }
    bool cLinkage() const { return !m_scopes.empty() && m_scopes.back().cLinkage; }

    bool push(Scope scope, std::size_t at)
    {
        if (m_scopes.size() >= kMaxScopes) {
            m_error = "line " + std::to_string(token(at).line)
                      + ": namespaces, extern \"C\" blocks and types "
                        "nested deeper than "
                      + std::to_string(kMaxScopes) + " levels (the check's limit)";
            return false;
        }
        m_scopes.push_back(std::move(scope));
        return true;
    }

    // One construct at m_pos; returns where the next one starts.
    std::size_t step()
    {
        const CudaToken &current = token(m_pos);
        if (current.is("}")) {
            if (m_scopes.empty())
                return m_pos + 1;
            Scope scope = std::move(m_scopes.back());
            m_scopes.pop_back();
            if (scope.kind == Scope::Kind::Type)
                return declarators(m_pos + 1, scope.outer, true);
            return m_pos + 1;
        }
        if (current.is(";"))
            return m_pos + 1;
        if (current.is("namespace")) {
            std::size_t i = m_pos + 1;
            while (i < size() && !is(i, "{") && !is(i, ";") && !is(i, "}"))
                ++i;
            if (is(i, "{") && !push({Scope::Kind::Namespace, cLinkage(), {}, {}}, i))
                return size();
            return is(i, "}") ? i : i + 1;
        }
        if (current.is("extern") && m_pos + 2 < size() && token(m_pos + 1).kind == Kind::String && is(m_pos + 2, "{")) {
            const bool isC = token(m_pos + 1).text == "\"C\"";
            if (!push({Scope::Kind::Linkage, cLinkage() || isC, {}, {}}, m_pos))
                return size();
            return m_pos + 3;
        }
        if (current.is("template"))
            return is(m_pos + 1, "<") ? skipAngles(m_pos + 1) : m_pos + 1;
        if (current.is("extern") && is(m_pos + 1, "template"))
            return m_pos + 1;
        if (current.is("typedef") || current.is("using") || current.is("static_assert") || current.is("asm")
            || current.is("__asm__") || current.is("__asm"))
            return skipStatement(m_pos);
        if (inType() && (current.is("public") || current.is("private") || current.is("protected"))
            && is(m_pos + 1, ":"))
            return m_pos + 2;
        return declaration(m_pos);
    }

    Specifiers freshSpecifiers() const
    {
        Specifiers specifiers;
        specifiers.cLinkage = cLinkage();
        specifiers.member = inType();
        if (inType())
            specifiers.typeName = m_scopes.back().typeName;
        return specifiers;
    }

    // __attribute__((device)) and __location__(device) are how NVRTC spells __device__.
    void addAttribute(std::size_t open, std::size_t close, Specifiers &specifiers) const
    {
        for (std::size_t i = open; i < close; ++i) {
            const std::string &word = token(i).text;
            if (token(i).kind != Kind::Identifier)
                continue;
            for (const char *location : {"device", "global", "host", "shared", "constant", "managed"})
                if (word == location || word == std::string("__") + location + "__")
                    specifiers.words.insert(std::string("__") + location + "__");
        }
    }

    std::size_t declaration(std::size_t start)
    {
        Specifiers specifiers = freshSpecifiers();
        bool typeSeen = false;
        std::size_t i = start;
        while (i < size()) {
            const CudaToken &current = token(i);
            if (current.is("[") && is(i + 1, "[")) {
                i = skipBalanced(i);
            } else if (current.kind == Kind::String) {
                if (i > start && is(i - 1, "extern") && current.text == "\"C\"")
                    specifiers.cLinkage = true;
                ++i;
            } else if (isTypeKeyword(current)) {
                const std::size_t next = typeSpecifier(i, specifiers);
                if (next == std::string::npos)
                    return size();
                if (is(next - 1, "{") && !current.is("enum"))
                    return next; // A type's body: its members come next, its declarators after it.
                typeSeen = true;
                i = next;
            } else if (current.kind == Kind::Identifier && kSpecifierWords.count(current.text)) {
                specifiers.words.insert(current.text);
                ++i;
            } else if (current.kind == Kind::Identifier && isParenthesisedSpecifier(current.text) && is(i + 1, "(")) {
                const std::size_t close = skipBalanced(i + 1);
                specifiers.words.insert(current.text);
                addAttribute(i + 1, close, specifiers);
                typeSeen = typeSeen || current.is("decltype");
                i = close;
            } else if (current.kind == Kind::Identifier && kTypeWords.count(current.text)) {
                specifiers.words.insert(current.text);
                typeSeen = true;
                ++i;
            } else if (current.is("operator") || current.is("~") || current.is("*") || current.is("&")
                       || current.is("(") || typeSeen) {
                return declarators(i, specifiers, false);
            } else if (current.kind == Kind::Identifier || current.is("::")) {
                // A name: the declaration's type, or (with no type before it) the declarator's name.
                const std::size_t end = nameEnd(i);
                if (end == i)
                    return skipUnknown(i);
                if (namesDeclarator(i, end, specifiers))
                    return declarators(i, specifiers, false);
                typeSeen = true;
                i = end;
            } else if (current.is(";")) {
                return i + 1;
            } else {
                return skipUnknown(i);
            }
        }
        return i;
    }

    // With no type before it, whether the name at [begin, end) is what is declared rather than a type:
    // a constructor "S(", a destructor, "f(" with an implicit type, or a name before "=" or ";".
    bool namesDeclarator(std::size_t begin, std::size_t end, const Specifiers &specifiers) const
    {
        if (is(end, "("))
            return !startsGroupedDeclarator(end + 1) || lastComponent(begin, end) == specifiers.typeName
                   || isConstructorName(begin, end);
        return is(end, "=") || is(end, ";") || is(end, ",") || is(end, "{") || is(end, "[") || is(end, ":");
    }

    // After "Type (": "*p", "&r", "(...)" or "C::*pm" begin a declarator in parentheses; anything else is a
    // parameter list.
    bool startsGroupedDeclarator(std::size_t i) const
    {
        if (is(i, "*") || is(i, "&") || is(i, "(") || is(i, "^"))
            return true;
        const std::size_t end = nameEnd(i);
        return end > i && is(end, "::") && is(end + 1, "*");
    }

    // "struct|class|union|enum [attributes] [Name] [final] [: bases] [{ ... }]": returns the index after the
    // head, which is after the "{" of a body (pushed as a scope, except an enum's, which is skipped), or npos.
    std::size_t typeSpecifier(std::size_t i, const Specifiers &specifiers)
    {
        const bool isEnum = token(i).is("enum");
        ++i;
        if (isEnum && (is(i, "class") || is(i, "struct")))
            ++i;
        std::string name = "(anonymous)";
        bool named = false;
        while (i < size()) {
            if (is(i, "[") && is(i + 1, "[")) {
                i = skipBalanced(i);
            } else if (isIdentifier(i) && isParenthesisedSpecifier(token(i).text) && is(i + 1, "(")) {
                i = skipBalanced(i + 1);
            } else if (named && (token(i).is("final") || token(i).is("sealed"))) {
                ++i;
            } else if (!named && (isIdentifier(i) || is(i, "::"))) {
                const std::size_t end = nameEnd(i);
                if (end == i)
                    break;
                name = lastComponent(i, end);
                named = true;
                i = end;
            } else {
                break;
            }
        }
        if (is(i, ":")) {
            // Bases, or an enum's underlying type: up to the body or the end of the declaration.
            while (i < size() && !is(i, "{") && !is(i, ";") && !is(i, "}")) {
                if (is(i, "<"))
                    i = skipAngles(i);
                else if (is(i, "(") || is(i, "["))
                    i = skipBalanced(i);
                else
                    ++i;
            }
        }
        if (!is(i, "{"))
            return i;
        if (isEnum)
            return skipBalanced(i);
        Scope scope{Scope::Kind::Type, specifiers.cLinkage, name, specifiers};
        if (!push(std::move(scope), i))
            return std::string::npos;
        return i + 1;
    }

    // The declarators of one declaration, from start up to its end; afterBody: they follow a type's "}".
    std::size_t declarators(std::size_t i, const Specifiers &specifiers, bool afterBody)
    {
        for (;;) {
            if (afterBody && is(i, ";"))
                return i + 1;
            afterBody = false;
            CudaDeclarator declarator;
            if (!readDeclarator(i, declarator))
                return skipUnknown(i);
            i = declarator.end;
            const std::size_t afterBody = declarator.function ? skipFunctionTail(i) : std::string::npos;
            // Non-static data members are part of their type: no state of their own.
            const bool dataMember = specifiers.member && !declarator.function && !specifiers.words.count("static");
            if (!dataMember)
                record(declarator, specifiers, afterBody != std::string::npos);
            if (afterBody != std::string::npos)
                return afterBody;
            i = skipInitializer(i);
            if (is(i, ",")) {
                ++i;
                continue;
            }
            return is(i, ";") ? i + 1 : skipUnknown(i);
        }
    }

    void record(const CudaDeclarator &declarator, const Specifiers &specifiers, bool definition)
    {
        CudaDeclaration declaration;
        declaration.kind = declarator.function ? CudaDeclaration::Kind::Function : CudaDeclaration::Kind::Variable;
        declaration.member = specifiers.member;
        declaration.name = specifiers.member && !specifiers.words.count("friend") && !specifiers.typeName.empty()
                               ? specifiers.typeName + "::" + declarator.name
                               : declarator.name;
        declaration.line = declarator.line;
        declaration.specifiers = specifiers.words;
        declaration.cLinkage = specifiers.cLinkage;
        declaration.definition = definition;
        declaration.paramsBegin = declarator.paramsBegin;
        declaration.paramsEnd = declarator.paramsEnd;
        declaration.constant =
            specifiers.words.count("constexpr") > 0 || declarator.constant(specifiers.words.count("const") > 0);
        m_result.push_back(std::move(declaration));
    }

    std::vector<Scope> m_scopes;
    std::vector<CudaDeclaration> m_result;
    std::string m_error;
};

} // namespace

Expected<std::vector<CudaDeclaration>> scanDeclarations(const std::vector<CudaToken> &tokens)
{
    return Scanner(tokens).run();
}

} // namespace kx
