#include "core/plan/cudamacros.h"

#include <algorithm>

namespace kx {
namespace {

using Kind = CudaToken::Kind;

// Longer pasted tokens serve no kernel, and chains of pastes would copy them over and over.
constexpr std::size_t kMaxPastedLength = 1024;

bool isParameter(const CudaMacro &macro, const CudaToken &token, std::size_t &index)
{
    if (token.kind != Kind::Identifier || !macro.functionLike)
        return false;
    const auto found = std::find(macro.params.begin(), macro.params.end(), token.text);
    if (found == macro.params.end())
        return false;
    index = std::size_t(found - macro.params.begin());
    return true;
}

// Operators of #if whose operand is a name or a parenthesised group that is not macro-expanded.
bool takesUnexpandedOperand(const std::string &name)
{
    return name == "__has_builtin" || name == "__has_attribute" || name == "__has_cpp_attribute"
           || name == "__has_feature" || name == "__has_extension" || name == "__has_warning" || name == "__has_include"
           || name == "__has_include_next" || name == "__CUDA_ARCH_HAS_FEATURE__";
}

// The "#" operator: the argument's spelling as a string literal.
PpToken stringify(const std::vector<PpToken> &argument, int line, bool spaceBefore)
{
    std::string text = "\"";
    bool first = true;
    for (const PpToken &token : argument) {
        if (token.placemarker)
            continue;
        if (!first && token.token.spaceBefore)
            text += ' ';
        first = false;
        const bool literal = token.token.kind == Kind::String || token.token.kind == Kind::Char;
        for (const char c : token.token.text) {
            if (literal && (c == '"' || c == '\\'))
                text += '\\';
            text += c;
        }
    }
    text += '"';
    PpToken result;
    result.token.kind = Kind::String;
    result.token.text = std::move(text);
    result.token.line = line;
    result.token.spaceBefore = spaceBefore;
    return result;
}

} // namespace

const CudaMacro *CudaMacroState::find(const std::string &name) const
{
    const auto found = macros.find(name);
    return found != macros.end() && found->second.defined ? &found->second : nullptr;
}

CudaMacro *CudaMacroState::find(const std::string &name)
{
    const auto found = macros.find(name);
    return found != macros.end() && found->second.defined ? &found->second : nullptr;
}

bool CudaMacroState::fail(int line, const std::string &message)
{
    if (error.empty())
        error = "line " + std::to_string(line) + ": " + message;
    return false;
}

bool CudaMacroState::produce(std::size_t n, int line)
{
    produced += n;
    if (produced <= limits.maxProducedTokens)
        return true;
    return fail(line, "macros expand to more than " + std::to_string(limits.maxProducedTokens)
                          + " tokens (the check's limit; a kernel's macros need far fewer)");
}

bool parseCudaMacro(const std::vector<CudaToken> &tokens, std::string &name, CudaMacro &macro)
{
    if (tokens.empty() || tokens[0].kind != Kind::Identifier || tokens[0].text == "defined")
        return false;
    name = tokens[0].text;
    macro = CudaMacro{};
    std::size_t i = 1;
    if (i < tokens.size() && tokens[i].is("(") && !tokens[i].spaceBefore) {
        macro.functionLike = true;
        ++i;
        while (i < tokens.size() && !tokens[i].is(")")) {
            if (tokens[i].is("...")) {
                macro.variadic = true;
                macro.params.push_back("__VA_ARGS__");
            } else if (tokens[i].kind == Kind::Identifier) {
                macro.params.push_back(tokens[i].text);
                if (i + 1 < tokens.size() && tokens[i + 1].is("...")) {
                    macro.variadic = true; // GNU: "args..." names the variable arguments.
                    ++i;
                }
            } else if (!tokens[i].is(",")) {
                return false;
            }
            ++i;
        }
        if (i == tokens.size())
            return false;
        ++i;
    }
    macro.body.assign(tokens.begin() + std::ptrdiff_t(i), tokens.end());
    if (!macro.body.empty())
        macro.body.front().spaceBefore = false;
    return true;
}

CudaMacroExpander::~CudaMacroExpander()
{
    for (const Context &context : m_contexts)
        if (context.macro)
            context.macro->disabled = false;
}

const PpToken *CudaMacroExpander::peekRaw()
{
    while (!m_contexts.empty()) {
        Context &top = m_contexts.back();
        if (top.pos < top.tokens.size())
            return &top.tokens[top.pos];
        if (top.macro)
            top.macro->disabled = false;
        m_contexts.pop_back();
    }
    return m_source.peek();
}

bool CudaMacroExpander::readRaw(PpToken &token)
{
    const PpToken *next = peekRaw();
    if (!next)
        return false;
    token = *next;
    if (m_contexts.empty())
        m_source.advance();
    else
        ++m_contexts.back().pos;
    // A name read while its macro is being replaced is painted: it stays unexpanded wherever it goes.
    if (token.token.kind == Kind::Identifier && !token.noExpand)
        if (const CudaMacro *macro = m_state.find(token.token.text); macro && macro->disabled)
            token.noExpand = true;
    return true;
}

void CudaMacroExpander::push(CudaMacro *macro, std::vector<PpToken> tokens, bool spaceBefore)
{
    if (!tokens.empty())
        tokens.front().token.spaceBefore = spaceBefore;
    macro->disabled = true;
    m_contexts.push_back({macro, std::move(tokens), 0});
}

bool CudaMacroExpander::next(PpToken &token)
{
    for (;;) {
        if (!m_state.error.empty() || !readRaw(token))
            return false;
        if (m_passName) {
            // In #if: the operand of defined, or of a __has_* operator, passes through as written.
            m_passName = false;
            return true;
        }
        if (m_passDepth > 0) {
            if (token.token.is("("))
                ++m_passDepth;
            else if (token.token.is(")"))
                --m_passDepth;
            m_passDepth = m_passDepth == 1 ? 0 : m_passDepth;
            return true;
        }
        if (token.token.kind != Kind::Identifier || token.noExpand)
            return true;
        if (m_condition && (token.token.text == "defined" || takesUnexpandedOperand(token.token.text))) {
            if (const PpToken *after = peekRaw(); after && after->token.is("("))
                m_passDepth = 1;
            else
                m_passName = token.token.text == "defined";
            return true;
        }
        CudaMacro *macro = m_state.find(token.token.text);
        if (!macro)
            return true;
        const int line = token.token.line;
        if (macro->builtin != CudaMacro::Builtin::None) {
            const bool space = token.token.spaceBefore;
            token = {};
            token.token.kind = macro->builtin == CudaMacro::Builtin::Line ? Kind::Number : Kind::String;
            token.token.text = macro->builtin == CudaMacro::Builtin::Line ? std::to_string(line) : "\"candidate.cu\"";
            token.token.line = line;
            token.token.spaceBefore = space;
            return true;
        }
        std::vector<std::vector<PpToken>> arguments;
        if (macro->functionLike) {
            const PpToken *after = peekRaw();
            if (!after || !after->token.is("("))
                return true; // A function-like macro's name without arguments is just a name.
            if (!collectArguments(token.token.text, *macro, line, arguments))
                return false;
        }
        std::vector<PpToken> replacement;
        if (!substitute(*macro, arguments, line, replacement))
            return false;
        push(macro, std::move(replacement), token.token.spaceBefore);
    }
}

bool CudaMacroExpander::collectArguments(const std::string &name, const CudaMacro &macro, int line,
                                         std::vector<std::vector<PpToken>> &arguments)
{
    PpToken token;
    readRaw(token); // "("
    arguments.emplace_back();
    int depth = 0;
    for (;;) {
        if (!readRaw(token))
            return m_state.fail(line, "the arguments of macro " + name + " are not closed");
        if (!m_state.error.empty())
            return false;
        if (token.token.is("(")) {
            ++depth;
        } else if (token.token.is(")")) {
            if (depth-- == 0)
                break;
        } else if (token.token.is(",") && depth == 0 && !(macro.variadic && arguments.size() == macro.params.size())) {
            arguments.emplace_back();
            continue;
        }
        token.token.lineStart = false;
        arguments.back().push_back(std::move(token));
    }
    // Arguments are copied at every level of nesting: they count like the tokens a replacement produces.
    std::size_t collected = 0;
    for (const auto &argument : arguments)
        collected += argument.size();
    if (!m_state.produce(collected, line))
        return false;
    // "f()" passes one empty argument: right for one parameter, and for none.
    if (macro.params.empty() && arguments.size() == 1 && arguments[0].empty())
        arguments.clear();
    if (macro.variadic && arguments.size() + 1 == macro.params.size())
        arguments.emplace_back(); // No variable arguments at all.
    if (arguments.size() != macro.params.size())
        return m_state.fail(line, "macro " + name + " takes " + std::to_string(macro.params.size()) + " arguments, not "
                                      + std::to_string(arguments.size()));
    return true;
}

bool CudaMacroExpander::expandArgument(const std::vector<PpToken> &argument, std::vector<PpToken> &expanded)
{
    if (m_nesting + 1 > m_state.limits.maxArgumentNesting) {
        const int line = argument.empty() ? 0 : argument.front().token.line;
        return m_state.fail(line, "macro calls nested deeper than " + std::to_string(m_state.limits.maxArgumentNesting)
                                      + " levels in arguments (the check's limit)");
    }
    CudaVectorSource source(argument);
    CudaMacroExpander inner(m_state, source, m_nesting + 1);
    PpToken token;
    while (inner.next(token)) {
        if (!m_state.produce(1, token.token.line))
            return false;
        expanded.push_back(std::move(token));
    }
    return m_state.error.empty();
}

bool CudaMacroExpander::substitute(const CudaMacro &macro, const std::vector<std::vector<PpToken>> &arguments, int line,
                                   std::vector<PpToken> &result)
{
    const std::vector<CudaToken> &body = macro.body;
    std::vector<std::optional<std::vector<PpToken>>> expanded(arguments.size());
    const bool variableArgumentsGiven = macro.variadic && !arguments.back().empty();
    // __VA_OPT__( ... ): the parenthesis that closes each one that is skipped or kept.
    std::vector<std::size_t> vaOptClose;
    bool pastePending = false;

    const auto append = [&](std::vector<PpToken> tokens, bool spaceBefore) -> bool {
        if (!m_state.produce(tokens.size(), line))
            return false;
        if (tokens.empty())
            return true;
        tokens.front().token.spaceBefore = spaceBefore;
        std::size_t first = 0;
        if (pastePending) {
            pastePending = false;
            if (!result.empty() && !result.back().placemarker && !tokens.front().placemarker) {
                CudaToken pasted;
                const std::string text = result.back().token.text + tokens.front().token.text;
                if (text.size() > kMaxPastedLength)
                    return m_state.fail(line, "token pasting makes a token longer than "
                                                  + std::to_string(kMaxPastedLength) + " characters");
                if (lexSingleToken(text, pasted)) {
                    pasted.line = line;
                    pasted.spaceBefore = result.back().token.spaceBefore;
                    result.back() = PpToken{pasted, false, false};
                    first = 1;
                }
                // Otherwise both stay, as GCC keeps them after its error.
            } else if (!result.empty() && result.back().placemarker) {
                result.pop_back();
            } else if (tokens.front().placemarker) {
                first = 1;
            }
        }
        for (std::size_t i = first; i < tokens.size(); ++i) {
            tokens[i].token.line = line;
            tokens[i].token.lineStart = false;
            result.push_back(std::move(tokens[i]));
        }
        return true;
    };
    const auto placemarker = [] {
        PpToken token;
        token.placemarker = true;
        return std::vector<PpToken>{token};
    };

    for (std::size_t i = 0; i < body.size(); ++i) {
        const CudaToken &item = body[i];
        if (!vaOptClose.empty() && i == vaOptClose.back()) {
            vaOptClose.pop_back();
            continue;
        }
        std::size_t index = 0;
        const bool nextIsPaste = i + 1 < body.size() && body[i + 1].is("##");
        if (item.is("##") && i > 0 && i + 1 < body.size()) {
            pastePending = true;
            continue;
        }
        if (macro.functionLike && item.is("#") && i + 1 < body.size() && isParameter(macro, body[i + 1], index)) {
            if (!m_state.produce(arguments[index].size(), line)
                || !append({stringify(arguments[index], line, false)}, item.spaceBefore))
                return false;
            ++i;
            continue;
        }
        if (macro.variadic && item.is("__VA_OPT__") && i + 1 < body.size() && body[i + 1].is("(")) {
            std::size_t close = i + 1;
            for (int depth = 0; close < body.size(); ++close) {
                if (body[close].is("("))
                    ++depth;
                else if (body[close].is(")") && --depth == 0)
                    break;
            }
            if (variableArgumentsGiven) {
                vaOptClose.push_back(close);
                ++i;
            } else {
                if (!append(placemarker(), item.spaceBefore))
                    return false;
                i = close;
            }
            continue;
        }
        if (isParameter(macro, item, index)) {
            const bool afterPaste = pastePending;
            const std::vector<PpToken> &argument = arguments[index];
            // GNU: ", ## __VA_ARGS__" drops the comma when there are no variable arguments.
            if (afterPaste && macro.variadic && index + 1 == arguments.size() && !result.empty()
                && result.back().token.is(",")) {
                pastePending = false;
                if (argument.empty())
                    result.pop_back();
                else if (!append(argument, item.spaceBefore))
                    return false;
                continue;
            }
            if (afterPaste || nextIsPaste) {
                if (!append(argument.empty() ? placemarker() : argument, item.spaceBefore))
                    return false;
                continue;
            }
            if (!expanded[index]) {
                expanded[index].emplace();
                if (!expandArgument(argument, *expanded[index]))
                    return false;
            }
            if (!append(*expanded[index], item.spaceBefore))
                return false;
            continue;
        }
        if (!append({PpToken{item, false, false}}, item.spaceBefore))
            return false;
    }
    std::erase_if(result, [](const PpToken &token) { return token.placemarker; });
    return true;
}

} // namespace kx
