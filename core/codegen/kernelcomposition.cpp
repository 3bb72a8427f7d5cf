#include "core/codegen/kernelcomposition.h"

#include "core/codegen/codegenutil.h"

#include <cctype>

namespace kx::codegen {

namespace {

bool identifierStart(char c)
{
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}

bool identifierPart(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The composed op's expression for each of the part's symbols, in parentheses where it is more than a name.
std::map<std::string, std::string> parenthesized(const std::map<std::string, std::string> &symbols)
{
    std::map<std::string, std::string> wrapped;
    for (const auto &[symbol, value] : symbols)
        wrapped[symbol] = isIdentifier(value) ? value : "(" + value + ")";
    return wrapped;
}

// A part's tensorMap argument in the composed plan: the map names the buffer its tensor is bound to (or its
// renamed scratch buffer), with dims and box over the composed op's symbols. Empty, or why it cannot be bound.
template <typename Bound>
std::string bindTensorMap(nlohmann::json &arg, const PartBinding &binding,
                          const std::map<std::string, std::string> &scratchNames, const Bound &bound)
{
    const auto name = arg["tensorMap"].get<std::string>();
    if (const auto buffer = scratchNames.find(name); buffer != scratchNames.end()) {
        arg["tensorMap"] = buffer->second;
    } else {
        const auto tensor = binding.tensors.find(name);
        if (tensor == binding.tensors.end())
            return "the part's tensor " + name + " is not bound";
        // A map reads memory as it lies: a transposed view or a reshaped library argument has no map of its own.
        const nlohmann::json &target = tensor->second;
        if (target.contains("transposed") || target.contains("shape") || target.size() != 1)
            return "the part's tensor map over " + name + " is bound to a view, which a tensor map cannot read";
        arg["tensorMap"] = target.begin().value();
    }
    for (const char *key : {"dims", "box"})
        if (arg.contains(key))
            for (auto &expression : arg[key])
                expression = bound(expression);
    return {};
}

} // namespace

std::string replaceIdentifiers(const std::string &text, const std::map<std::string, std::string> &replacements)
{
    std::string result;
    result.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        // A digit run with letters (1e5f, 0x7f) is a literal, not an identifier.
        if (std::isdigit(static_cast<unsigned char>(text[i]))) {
            const std::size_t start = i;
            while (i < text.size() && identifierPart(text[i]))
                ++i;
            result.append(text, start, i - start);
            continue;
        }
        if (!identifierStart(text[i])) {
            result += text[i++];
            continue;
        }
        const std::size_t start = i;
        while (i < text.size() && identifierPart(text[i]))
            ++i;
        const std::string word = text.substr(start, i - start);
        const auto it = replacements.find(word);
        result += it == replacements.end() ? word : it->second;
    }
    return result;
}

Status KernelComposition::add(const GeneratedKernel &part, const PartBinding &binding)
{
    nlohmann::json plan;
    try {
        plan = nlohmann::json::parse(part.launchPlan);
    } catch (const nlohmann::json::exception &error) {
        return Error{binding.prefix + ": the part's plan does not parse: " + error.what()};
    }
    if (!plan.contains("steps") || !plan["steps"].is_array())
        return Error{binding.prefix + ": the part's plan has no steps"};
    const auto symbols = parenthesized(binding.symbols);
    const auto bound = [&](const nlohmann::json &expression) {
        return replaceIdentifiers(expression.get<std::string>(), symbols);
    };
    // The part's kernels and scratch buffers take its prefix: two parts of one template declare the same names.
    std::map<std::string, std::string> kernelNames;
    std::map<std::string, std::string> scratchNames;
    for (const auto &buffer : plan.value("scratch", nlohmann::json::array())) {
        const auto name = buffer.at("name").get<std::string>();
        scratchNames[name] = binding.prefix + "_" + name;
        m_scratch.emplace_back(scratchNames[name], bound(buffer.at("bytes")));
    }
    for (auto step : plan["steps"]) {
        if (!step.contains("kernel"))
            return Error{binding.prefix + ": library steps do not compose (only generated kernels)"};
        const auto kernel = step["kernel"].get<std::string>();
        kernelNames[kernel] = binding.prefix + "_" + kernel;
        step["kernel"] = kernelNames[kernel];
        for (const char *key : {"grid", "block"})
            for (auto &expression : step[key])
                expression = bound(expression);
        step["shared"] = bound(step.value("shared", nlohmann::json("0")));
        for (auto &arg : step["args"]) {
            if (arg.contains("int")) {
                arg["int"] = bound(arg["int"]);
            } else if (arg.contains("scratch")) {
                const auto buffer = scratchNames.find(arg["scratch"].get<std::string>());
                if (buffer == scratchNames.end())
                    return Error{binding.prefix + ": the part's plan reads an undeclared scratch buffer"};
                arg["scratch"] = buffer->second;
            } else if (arg.contains("tensorMap")) {
                if (auto problem = bindTensorMap(arg, binding, scratchNames, bound); !problem.empty())
                    return Error{binding.prefix + ": " + problem};
            } else if (arg.contains("input") || arg.contains("output")) {
                const auto tensor = (arg.contains("input") ? arg["input"] : arg["output"]).get<std::string>();
                const auto argument = binding.tensors.find(tensor);
                if (argument == binding.tensors.end())
                    return Error{binding.prefix + ": the part's tensor " + tensor + " is not bound"};
                arg = argument->second;
            }
        }
        m_steps.push_back(step);
    }
    // The source names the part's symbols in its comments only: they read as the composed op's dimensions.
    auto renamed = kernelNames;
    renamed.insert(symbols.begin(), symbols.end());
    m_sources += "namespace " + binding.prefix + " {\n\n" + replaceIdentifiers(part.source, renamed)
                 + "\n} // namespace " + binding.prefix + "\n\n";
    return {};
}

void KernelComposition::addOwn(const std::string &source, const nlohmann::json &steps)
{
    m_sources += source;
    for (const auto &step : steps)
        m_steps.push_back(step);
}

void KernelComposition::addScratch(const std::string &name, const std::string &bytes)
{
    m_scratch.emplace_back(name, bytes);
}

GeneratedKernel KernelComposition::result(const std::string &header) const
{
    return {header + "\n" + m_sources, planJson(m_steps, m_scratch)};
}

} // namespace kx::codegen
