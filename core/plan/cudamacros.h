#pragma once

#include "core/plan/cudatokenizer.h"

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace kx {

// The preprocessor's view of a token: a CudaToken and what macro replacement needs to know about it.
struct PpToken
{
    CudaToken token;
    bool noExpand = false;    // Named a macro while that macro was being replaced: never expanded.
    bool placemarker = false; // An empty argument next to "##".
};

struct CudaMacro
{
    enum class Builtin { None, Line, File };
    bool defined = true; // False after #undef (entries stay: contexts point at them).
    bool functionLike = false;
    bool variadic = false; // The last parameter takes the rest (__VA_ARGS__ or "name...").
    std::vector<std::string> params;
    std::vector<CudaToken> body;
    Builtin builtin = Builtin::None;
    bool disabled = false; // Being replaced: its name is not expanded again.
};

// Limits that keep the preprocessor linear in the size of its input: a candidate's macros can multiply tokens
// ("#define A B B", "#define B C C" ...) and nest arguments, and neither may cost more than this.
struct CudaMacroLimits
{
    std::size_t maxProducedTokens = 0; // Tokens that macro replacement may produce in all.
    int maxArgumentNesting = 256;      // Macro calls nested in the arguments of macro calls.
};

// What the expanders of one source share: the macros, the limits and the first error.
struct CudaMacroState
{
    std::unordered_map<std::string, CudaMacro> macros;
    CudaMacroLimits limits;
    std::size_t produced = 0;
    std::string error; // "line N: ..." once something is wrong; expansion stops then.

    const CudaMacro *find(const std::string &name) const;
    CudaMacro *find(const std::string &name);
    bool fail(int line, const std::string &message);
    // Counts n produced tokens; false (and an error) past the limit.
    bool produce(std::size_t n, int line);
};

// Where an expander reads unexpanded tokens from: the source (with its directives) or a macro argument.
class CudaTokenSource
{
public:
    virtual ~CudaTokenSource() = default;
    virtual const PpToken *peek() = 0; // nullptr at the end.
    virtual void advance() = 0;
};

class CudaVectorSource : public CudaTokenSource
{
public:
    explicit CudaVectorSource(const std::vector<PpToken> &tokens)
        : m_tokens(tokens)
    {}
    const PpToken *peek() override { return m_pos < m_tokens.size() ? &m_tokens[m_pos] : nullptr; }
    void advance() override { ++m_pos; }

private:
    const std::vector<PpToken> &m_tokens;
    std::size_t m_pos = 0;
};

// Parses the tokens after "#define" (name, parameters, replacement); false when they define nothing.
bool parseCudaMacro(const std::vector<CudaToken> &tokens, std::string &name, CudaMacro &macro);

/**
 * Macro replacement as C++ specifies it, the way GCC's cpplib does it: a macro being replaced is disabled, its
 * name is then painted and never expanded; arguments are expanded on their own before substitution; "#" and
 * "##", __VA_ARGS__, __VA_OPT__ and GNU's ", ## __VA_ARGS__" are supported. Iterative except for arguments,
 * whose nesting is limited. Stops at the first error (see CudaMacroState::error).
 */
class CudaMacroExpander
{
public:
    CudaMacroExpander(CudaMacroState &state, CudaTokenSource &source, int nesting = 0)
        : m_state(state)
        , m_source(source)
        , m_nesting(nesting)
    {}
    ~CudaMacroExpander();
    CudaMacroExpander(const CudaMacroExpander &) = delete;
    CudaMacroExpander &operator=(const CudaMacroExpander &) = delete;

    // #if mode: the operands of defined and __has_*(...) are not expanded.
    void setConditionMode(bool on) { m_condition = on; }
    // The next token after macro replacement; false at the end or after an error.
    bool next(PpToken &token);

private:
    struct Context
    {
        CudaMacro *macro = nullptr;
        std::vector<PpToken> tokens;
        std::size_t pos = 0;
    };
    const PpToken *peekRaw();
    bool readRaw(PpToken &token);
    bool collectArguments(const std::string &name, const CudaMacro &macro, int line,
                          std::vector<std::vector<PpToken>> &arguments);
    bool substitute(const CudaMacro &macro, const std::vector<std::vector<PpToken>> &arguments, int line,
                    std::vector<PpToken> &result);
    bool expandArgument(const std::vector<PpToken> &argument, std::vector<PpToken> &expanded);
    void push(CudaMacro *macro, std::vector<PpToken> tokens, bool spaceBefore);

    CudaMacroState &m_state;
    CudaTokenSource &m_source;
    int m_nesting;
    bool m_condition = false;
    bool m_passName = false; // In #if mode: the next raw token passes unexpanded ...
    int m_passDepth = 0;     // ... or a parenthesised group does (its depth + 1).
    std::vector<Context> m_contexts;
};

} // namespace kx
