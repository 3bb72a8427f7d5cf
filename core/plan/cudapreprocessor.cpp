#include "core/plan/cudapreprocessor.h"

#include "core/plan/cudaconditions.h"
#include "core/plan/cudamacros.h"

#include <optional>
#include <regex>

namespace kx {
namespace {

using Kind = CudaToken::Kind;

// Macro replacement may produce this many tokens, plus kProducedPerSourceToken for each token of the source.
constexpr std::size_t kProducedBase = std::size_t(1) << 20;
constexpr std::size_t kProducedPerSourceToken = 16;

// What NVRTC predefines that a candidate's #if might test (seen with NVRTC 13.0's own preprocessor). The CUDA
// keywords are macros there too; here they stand for themselves, so defined() agrees and the check sees them.
std::string predefinedMacros(const CudaPreprocessOptions &options)
{
    std::string text = "#define __CUDACC__ 1\n#define __CUDACC_RTC__ 1\n#define __cplusplus 201703L\n"
                       "#define __LP64__ 1\n#define __STDC__ 1\n#define __EDG__ 1\n"
                       "#define __NVCC_DIAG_PRAGMA_SUPPORT__ 1\n#define __CUDA_RUNTIME_H__\n"
                       "#define __DATE__ \"Jan  1 2000\"\n#define __TIME__ \"00:00:00\"\n";
    text += std::string("#define __USE_FAST_MATH__ ") + (options.fastMath ? "1" : "0") + "\n";
    for (const char *keyword : {"__device__", "__global__", "__host__", "__shared__", "__constant__", "__managed__",
                                "__forceinline__", "__noinline__", "__grid_constant__", "__nv_register_params__",
                                "__launch_bounds__", "__cluster_dims__", "__maxnreg__", "__location__", "__annotate__",
                                "__has_builtin", "__has_attribute", "__CUDA_ARCH_HAS_FEATURE__"})
        text += std::string("#define ") + keyword + " " + keyword + "\n";

    static const std::regex archPattern("sm_([0-9]{2,3})([af]?)");
    std::smatch match;
    if (std::regex_match(options.arch, match, archPattern)) {
        const std::string arch = match[1].str() + "0";
        text += "#define __CUDA_ARCH__ " + arch + "\n#define __CUDA_ARCH_LIST__ " + arch + "\n";
        if (match[2] == "a")
            text += "#define __CUDA_ARCH_FEAT_SM" + match[1].str() + "_ALL 1\n#define __CUDA_ARCH_SPECIFIC__ " + arch
                    + "\n";
        if (!match[2].str().empty())
            text += "#define __CUDA_ARCH_FAMILY_SPECIFIC__ " + arch + "\n";
    }
    static const std::regex versionPattern("([0-9]+)\\.([0-9]+)");
    if (std::regex_match(options.cudaVersion, match, versionPattern)) {
        const std::string api = std::to_string(std::stoi(match[1]) * 1000 + std::stoi(match[2]) * 10);
        text += "#define __CUDACC_VER_MAJOR__ " + match[1].str() + "\n#define __CUDACC_VER_MINOR__ " + match[2].str()
                + "\n#define __CUDACC_VER_BUILD__ 0\n#define CUDART_VERSION " + api + "\n#define __CUDART_API_VERSION "
                + api + "\n";
    }
    return text;
}

// The source with its directives carried out: what the macro expander reads.
class SourceReader : public CudaTokenSource
{
public:
    SourceReader(std::vector<CudaToken> tokens, CudaMacroState &state)
        : m_tokens(std::move(tokens))
        , m_state(state)
    {}

    const PpToken *peek() override
    {
        while (!m_current && m_state.error.empty() && m_pos < m_tokens.size()) {
            const CudaToken &token = m_tokens[m_pos];
            if (token.lineStart && token.is("#")) {
                directive();
            } else if (skipping()) {
                ++m_pos;
                while (m_pos < m_tokens.size() && !m_tokens[m_pos].lineStart)
                    ++m_pos;
            } else {
                m_current = PpToken{token, false, false};
                ++m_pos;
            }
        }
        return m_current && m_state.error.empty() ? &*m_current : nullptr;
    }

    void advance() override { m_current.reset(); }

private:
    // One #if ... #endif: whether the group being read is compiled, and whether one of its groups was.
    struct Conditional
    {
        bool parentActive = true;
        bool taken = false;
        bool active = false;
        bool sawElse = false;
    };

    bool skipping() const { return !m_conditionals.empty() && !m_conditionals.back().active; }

    void directive()
    {
        const int line = m_tokens[m_pos].line;
        std::vector<CudaToken> tokens;
        for (++m_pos; m_pos < m_tokens.size() && !m_tokens[m_pos].lineStart; ++m_pos)
            tokens.push_back(m_tokens[m_pos]);
        if (tokens.empty() || tokens[0].kind != Kind::Identifier)
            return; // The null directive, or a line marker (the include check looks at those).
        const std::string name = tokens[0].text;
        tokens.erase(tokens.begin());

        if (name == "if" || name == "ifdef" || name == "ifndef") {
            Conditional conditional;
            conditional.parentActive = !skipping();
            conditional.active = conditional.parentActive && condition(name, tokens, line);
            conditional.taken = conditional.active;
            m_conditionals.push_back(conditional);
        } else if (name == "elif" || name == "elifdef" || name == "elifndef") {
            if (m_conditionals.empty())
                return;
            Conditional &conditional = m_conditionals.back();
            if (!conditional.parentActive || conditional.taken || conditional.sawElse) {
                conditional.active = false;
                return;
            }
            conditional.active = condition(name == "elif" ? "if" : name.substr(2), tokens, line);
            conditional.taken = conditional.active;
        } else if (name == "else") {
            if (m_conditionals.empty())
                return;
            Conditional &conditional = m_conditionals.back();
            conditional.active = conditional.parentActive && !conditional.taken && !conditional.sawElse;
            conditional.taken = true;
            conditional.sawElse = true;
        } else if (name == "endif") {
            if (!m_conditionals.empty())
                m_conditionals.pop_back();
        } else if (skipping()) {
            return;
        } else if (name == "define") {
            define(tokens);
        } else if (name == "undef") {
            if (!tokens.empty())
                if (CudaMacro *macro = m_state.find(tokens[0].text))
                    macro->defined = false;
        }
        // #include is the include check's; #pragma, #line, #error, #warning change nothing the check sees.
    }

    void define(const std::vector<CudaToken> &tokens)
    {
        std::string name;
        CudaMacro macro;
        if (!parseCudaMacro(tokens, name, macro))
            return;
        CudaMacro &entry = m_state.macros[name];
        macro.disabled = entry.disabled; // A redefinition inside a macro's arguments keeps it disabled.
        entry = std::move(macro);
    }

    bool condition(const std::string &kind, const std::vector<CudaToken> &tokens, int line)
    {
        if (kind == "ifdef" || kind == "ifndef") {
            const bool defined = !tokens.empty() && m_state.find(tokens[0].text) != nullptr;
            return kind == "ifdef" ? defined : !defined;
        }
        std::vector<PpToken> raw;
        for (const CudaToken &token : tokens)
            raw.push_back({token, false, false});
        CudaVectorSource source(raw);
        CudaMacroExpander expander(m_state, source);
        expander.setConditionMode(true);
        std::vector<PpToken> expanded;
        for (PpToken token; expander.next(token);)
            expanded.push_back(std::move(token));
        if (!m_state.error.empty())
            return false;
        const Expected<bool> value = evaluateCudaCondition(expanded, m_state, line);
        if (!value) {
            m_state.error = value.error().message;
            return false;
        }
        return *value;
    }

    std::vector<CudaToken> m_tokens;
    CudaMacroState &m_state;
    std::size_t m_pos = 0;
    std::optional<PpToken> m_current;
    std::vector<Conditional> m_conditionals;
};

// Punctuators as the declaration scanner reads them: one character each, except "::".
void appendSplit(const CudaToken &token, std::vector<CudaToken> &out)
{
    if (token.kind != Kind::Punctuator || token.text.size() == 1 || token.text == "::") {
        out.push_back(token);
        return;
    }
    for (std::size_t i = 0; i < token.text.size(); ++i) {
        CudaToken part = token;
        part.text = token.text.substr(i, 1);
        part.spaceBefore = i == 0 && token.spaceBefore;
        part.lineStart = i == 0 && token.lineStart;
        out.push_back(std::move(part));
    }
}

} // namespace

Expected<std::vector<CudaToken>> preprocessCuda(const std::string &source, const CudaPreprocessOptions &options)
{
    CudaMacroState state;
    {
        SourceReader prelude(tokenizeCuda(predefinedMacros(options)), state);
        prelude.peek();
    }
    state.macros["__LINE__"].builtin = CudaMacro::Builtin::Line;
    state.macros["__FILE__"].builtin = CudaMacro::Builtin::File;

    std::vector<CudaToken> tokens = tokenizeCuda(source);
    state.limits.maxProducedTokens = kProducedBase + kProducedPerSourceToken * tokens.size();
    SourceReader reader(std::move(tokens), state);
    CudaMacroExpander expander(state, reader);
    std::vector<CudaToken> expanded;
    for (PpToken token; expander.next(token);)
        expanded.push_back(std::move(token.token));
    if (!state.error.empty())
        return Error{state.error};

    std::vector<CudaToken> result;
    result.reserve(expanded.size());
    for (std::size_t i = 0; i < expanded.size(); ++i) {
        // _Pragma("...") is a #pragma: nothing the check needs to see.
        if (expanded[i].is("_Pragma") && i + 1 < expanded.size() && expanded[i + 1].is("(")) {
            int depth = 0;
            for (++i; i < expanded.size(); ++i) {
                if (expanded[i].is("("))
                    ++depth;
                else if (expanded[i].is(")") && --depth == 0)
                    break;
            }
            continue;
        }
        appendSplit(expanded[i], result);
    }
    return result;
}

} // namespace kx
