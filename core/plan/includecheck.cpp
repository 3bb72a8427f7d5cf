#include "core/plan/includecheck.h"

#include "core/plan/cudatokenizer.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string_view>

namespace kx {
namespace {

bool isIdentifierStart(char c)
{
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}

bool isIdentifierChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Spaces, control characters and bytes outside ASCII: none of them can stand before a directive's '#' in a way
// NVRTC accepts, so treating them as blank only finds more directives, never fewer.
bool isBlank(char c)
{
    const auto byte = static_cast<unsigned char>(c);
    return byte <= ' ' || byte >= 0x7f;
}


// Operators of #if that take a parenthesised operand without expanding a macro a candidate could have written.
const std::set<std::string> &ifOperators()
{
    static const std::set<std::string> names{
        "defined",       "__has_builtin",   "__has_attribute", "__has_cpp_attribute",
        "__has_feature", "__has_extension", "__has_warning"};
    return names;
}

// A #define, as much as the #if check needs.
struct Macro
{
    bool unsafe = false;                  // Function-like, pastes tokens or calls a macro.
    std::vector<std::string> identifiers; // Of its replacement text.
};

struct Problem
{
    int line = 0;
    std::string message;
};

class IncludeScanner
{
public:
    explicit IncludeScanner(const std::string &source)
        : m_spliced(spliceLines(source))
        , m_text(m_spliced.text)
    {}

    Expected<std::vector<std::string>> run()
    {
        for (std::size_t begin = 0; begin < m_text.size();) {
            std::size_t end = begin;
            while (end < m_text.size() && m_text[end] != '\n' && m_text[end] != '\r')
                ++end;
            scanLine(begin, end);
            begin = end + 1;
        }
        findMacrosThatReachUnsafeOnes();
        for (const auto &[position, expression] : m_conditions)
            checkCondition(position, expression);
        findFileProbes();
        if (m_problems.empty())
            return m_included;
        std::stable_sort(m_problems.begin(), m_problems.end(),
                         [](const Problem &a, const Problem &b) { return a.line < b.line; });
        // A few are enough to act on; thousands would only fill logs and prompts.
        constexpr std::size_t kMaxListed = 20;
        std::string message;
        for (std::size_t i = 0; i < std::min(m_problems.size(), kMaxListed); ++i)
            message += (message.empty() ? "" : "\n") + ("line " + std::to_string(m_problems[i].line) + ": ")
                       + m_problems[i].message;
        if (m_problems.size() > kMaxListed)
            message += "\n(and " + std::to_string(m_problems.size() - kMaxListed) + " more)";
        return Error{message};
    }

private:
    // A '#' (or the digraph "%:") introduces a directive when only blanks stand before it on its line, or only
    // blanks after a "*/": NVRTC takes "int a; /*\n*/ #include" as a directive. Scanning every line this way,
    // comments and strings included, finds every directive NVRTC could see, and a few more.
    void scanLine(std::size_t begin, std::size_t end)
    {
        bool blank = true;
        for (std::size_t i = begin; i < end; ++i) {
            const char c = m_text[i];
            if (c == '*' && i + 1 < end && m_text[i + 1] == '/') {
                blank = true;
                ++i;
            } else if (c == '#' || (c == '%' && i + 1 < end && m_text[i + 1] == ':')) {
                if (blank)
                    directive(i, c == '#' ? i + 1 : i + 2, end);
                blank = false;
            } else if (!isBlank(c)) {
                blank = false;
            }
        }
    }

    // Where what occurs in [from, end), or end: searches never run past the line, which keeps the check linear.
    std::size_t findInLine(std::string_view what, std::size_t from, std::size_t end) const
    {
        if (from >= end)
            return end;
        const auto found = std::string_view(m_text).substr(from, end - from).find(what);
        return found == std::string_view::npos ? end : from + found;
    }

    // Skips blanks and comments; a comment that goes past the line, or "//", ends it.
    std::size_t skipBlanks(std::size_t i, std::size_t end) const
    {
        while (i < end) {
            if (isBlank(m_text[i])) {
                ++i;
            } else if (m_text.compare(i, 2, "/*") == 0) {
                const std::size_t close = findInLine("*/", i + 2, end);
                if (close == end)
                    return end;
                i = close + 2;
            } else if (m_text.compare(i, 2, "//") == 0) {
                return end;
            } else {
                break;
            }
        }
        return i;
    }

    std::size_t identifierEnd(std::size_t i, std::size_t end) const
    {
        while (i < end && isIdentifierChar(m_text[i]))
            ++i;
        return i;
    }

    void report(std::size_t position, std::string message)
    {
        // The line of the last character at the end (spliceLines' extra entry is the line after it).
        const std::size_t last = m_spliced.text.empty() ? 0 : m_spliced.text.size() - 1;
        const int line = m_spliced.lines[std::min(position, last)];
        m_problems.push_back({line, std::move(message)});
    }

    void directive(std::size_t hash, std::size_t i, std::size_t end)
    {
        i = skipBlanks(i, end);
        if (i < end && std::isdigit(static_cast<unsigned char>(m_text[i]))) {
            // A line marker, "# 12 "file"": the same as #line.
            lineDirective(hash, i, end);
            return;
        }
        const std::size_t nameEnd = identifierEnd(i, end);
        const std::string name = m_text.substr(i, nameEnd - i);
        if (name == "include")
            include(hash, nameEnd, end);
        else if (name == "include_next" || name == "import" || name == "embed")
            report(hash, "#" + name
                             + " is not allowed (it reads files); a candidate may include only these CUDA "
                               "headers: "
                             + allowedCudaHeadersText());
        else if (name == "line")
            lineDirective(hash, nameEnd, end);
        else if (name == "define")
            define(nameEnd, end);
        else if (name == "if" || name == "elif")
            m_conditions.emplace_back(hash, m_text.substr(nameEnd, end - nameEnd));
    }

    void include(std::size_t hash, std::size_t i, std::size_t end)
    {
        const std::string allowed = "a candidate may include only these CUDA headers: " + allowedCudaHeadersText();
        i = skipBlanks(i, end);
        const char open = i < end ? m_text[i] : '\0';
        if (open != '"' && open != '<') {
            report(hash, "computed #include (a macro, not a header name in quotes or angle brackets) is not "
                         "allowed: it can name any file (a line that starts with #include counts even in a block "
                         "comment); "
                             + allowed);
            return;
        }
        const char close = open == '"' ? '"' : '>';
        const std::size_t closing = findInLine(std::string_view(&close, 1), i + 1, end);
        if (closing == end) {
            report(hash, "#include without the closing " + std::string(1, close) + " of its header name");
            return;
        }
        const std::string name = m_text.substr(i + 1, closing - i - 1);
        const std::string written = "#include " + m_text.substr(i, closing + 1 - i);
        if (skipBlanks(closing + 1, end) != end) {
            report(hash, "text after the header name of " + written + " is not allowed");
            return;
        }
        const auto &headers = allowedCudaHeaders();
        if (std::find(headers.begin(), headers.end(), name) == headers.end()) {
            report(hash, written + " is not allowed: " + allowed);
            return;
        }
        if (std::find(m_included.begin(), m_included.end(), name) == m_included.end())
            m_included.push_back(name);
    }

    // "#line 12" is harmless; a file name would make diagnostics name another file than candidate.cu.
    void lineDirective(std::size_t hash, std::size_t i, std::size_t end)
    {
        i = skipBlanks(i, end);
        std::size_t digits = i;
        while (digits < end && std::isdigit(static_cast<unsigned char>(m_text[digits])))
            ++digits;
        if (digits == i || skipBlanks(digits, end) != end)
            report(hash, "#line with a file name (or a macro) is not allowed; #line may give only a line number");
    }

    void define(std::size_t i, std::size_t end)
    {
        i = skipBlanks(i, end);
        const std::size_t nameEnd = identifierEnd(i, end);
        if (nameEnd == i)
            return;
        Macro &macro = m_macros[m_text.substr(i, nameEnd - i)];
        std::size_t body = nameEnd;
        if (nameEnd < end && m_text[nameEnd] == '(') {
            macro.unsafe = true;
            const std::size_t close = findInLine(")", nameEnd, end);
            body = close == end ? end : close + 1;
        }
        const std::string text = m_text.substr(body, end - body);
        if (text.find("##") != std::string::npos || text.find("%:%:") != std::string::npos)
            macro.unsafe = true;
        for (std::size_t j = 0; j < text.size();) {
            if (std::isdigit(static_cast<unsigned char>(text[j]))) {
                while (j < text.size() && (isIdentifierChar(text[j]) || text[j] == '.'))
                    ++j;
            } else if (isIdentifierStart(text[j])) {
                std::size_t k = j;
                while (k < text.size() && isIdentifierChar(text[k]))
                    ++k;
                const std::string identifier = text.substr(j, k - j);
                std::size_t next = k;
                while (next < text.size() && isBlank(text[next]))
                    ++next;
                if (next < text.size() && text[next] == '(' && !ifOperators().contains(identifier))
                    macro.unsafe = true;
                macro.identifiers.push_back(identifier);
                j = k;
            } else {
                ++j;
            }
        }
    }

    // __has_include can be built by token pasting in a macro a #if expands ("P(__has_, include)"), so a #if may
    // not call a macro, nor expand one of the candidate's macros that is function-like, pastes or calls one.
    void checkCondition(std::size_t hash, const std::string &expression)
    {
        const std::string why = " (token pasting can build __has_include, which probes the file system)";
        std::vector<std::string> pending;
        bool operand = false; // The next identifier is the operand of defined: it is not expanded.
        for (std::size_t j = 0; j < expression.size();) {
            if (expression.compare(j, 2, "/*") == 0) {
                const auto close = expression.find("*/", j + 2);
                j = close == std::string::npos ? expression.size() : close + 2;
            } else if (expression.compare(j, 2, "//") == 0) {
                break;
            } else if (std::isdigit(static_cast<unsigned char>(expression[j]))) {
                while (j < expression.size() && (isIdentifierChar(expression[j]) || expression[j] == '.'))
                    ++j;
            } else if (isIdentifierStart(expression[j])) {
                std::size_t k = j;
                while (k < expression.size() && isIdentifierChar(expression[k]))
                    ++k;
                const std::string identifier = expression.substr(j, k - j);
                std::size_t next = k;
                while (next < expression.size() && isBlank(expression[next]))
                    ++next;
                if (next < expression.size() && expression[next] == '(' && !ifOperators().contains(identifier)) {
                    report(hash, "#if may not call the macro " + identifier + why);
                    return;
                }
                if (!operand)
                    pending.push_back(identifier);
                operand = identifier == "defined";
                j = k;
            } else {
                if (expression[j] != '(' && !isBlank(expression[j]))
                    operand = false;
                ++j;
            }
        }
        for (const std::string &name : pending) {
            if (const auto unsafe = m_reachesUnsafe.find(name); unsafe != m_reachesUnsafe.end()) {
                report(hash, "#if may not expand the macro " + name
                                 + (unsafe->second == name ? "" : " (through " + unsafe->second + ")")
                                 + ", which takes arguments, pastes tokens or calls a macro" + why);
                return;
            }
        }
    }

    // Every macro whose expansion can reach an unsafe one, with the unsafe one it reaches: found once, backwards
    // from the unsafe macros, so the check stays linear however many #if lines and macros there are.
    void findMacrosThatReachUnsafeOnes()
    {
        std::map<std::string, std::vector<std::string>> usedBy;
        std::vector<std::string> pending;
        for (const auto &[name, macro] : m_macros) {
            for (const std::string &identifier : macro.identifiers)
                if (m_macros.contains(identifier))
                    usedBy[identifier].push_back(name);
            if (macro.unsafe) {
                m_reachesUnsafe[name] = name;
                pending.push_back(name);
            }
        }
        while (!pending.empty()) {
            const std::string name = pending.back();
            pending.pop_back();
            const std::string unsafe = m_reachesUnsafe[name];
            for (const std::string &user : usedBy[name])
                if (m_reachesUnsafe.emplace(user, unsafe).second)
                    pending.push_back(user);
        }
    }

    // Wherever they stand: in a #define they work once the macro is used in a #if.
    void findFileProbes()
    {
        static const std::set<std::string> probes{"__has_include", "__has_include_next", "__has_embed"};
        for (std::size_t i = 0; i < m_text.size();) {
            if (!isIdentifierChar(m_text[i])) {
                ++i;
                continue;
            }
            const std::size_t end = identifierEnd(i, m_text.size());
            const std::string identifier = m_text.substr(i, end - i);
            if (probes.contains(identifier))
                report(i, identifier + " is not allowed (it probes the file system)");
            i = end;
        }
    }

    SplicedSource m_spliced;
    const std::string &m_text;
    std::map<std::string, Macro> m_macros;
    std::map<std::string, std::string> m_reachesUnsafe;
    std::vector<std::pair<std::size_t, std::string>> m_conditions;
    std::vector<std::string> m_included;
    std::vector<Problem> m_problems;
};

} // namespace

const std::vector<std::string> &allowedCudaHeaders()
{
    // What the project's templates (mma.h) and typical hand-written or model-written kernels include: half and
    // low-precision types, math constants, tensor cores, async copies, cooperative groups and the libcu++ parts
    // that go with them. cuda_runtime.h and device_launch_parameters.h because models add them by habit.
    static const std::vector<std::string> headers{
        "cuda_runtime.h",
        "device_launch_parameters.h",
        "math_constants.h",
        "cuda_fp16.h",
        "cuda_bf16.h",
        "cuda_fp8.h",
        "mma.h",
        "cuda_pipeline.h",
        "cuda_awbarrier.h",
        "cooperative_groups.h",
        "cooperative_groups/reduce.h",
        "cooperative_groups/memcpy_async.h",
        "cuda/barrier",
        "cuda/pipeline",
        "cuda/std/cstdint",
        "cuda/std/limits",
        "cuda/std/type_traits",
    };
    return headers;
}

std::string allowedCudaHeadersText()
{
    std::string text;
    for (const std::string &header : allowedCudaHeaders())
        text += (text.empty() ? "" : ", ") + header;
    return text;
}

Expected<std::vector<std::string>> checkIncludes(const std::string &source)
{
    return IncludeScanner(source).run();
}

} // namespace kx
