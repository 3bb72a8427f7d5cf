#include "core/codegen/codegenutil.h"

#include <regex>

namespace kx::codegen {

nlohmann::json inputArg(const std::string &name) { return {{"input", name}}; }
nlohmann::json outputArg(const std::string &name) { return {{"output", name}}; }
nlohmann::json scratchArg(const std::string &name) { return {{"scratch", name}}; }
nlohmann::json intArg(const std::string &expression) { return {{"int", expression}}; }
nlohmann::json floatArg(double value) { return {{"float", value}}; }

nlohmann::json kernelStep(const std::string &kernel, const std::vector<std::string> &grid,
                          const std::vector<std::string> &block, const nlohmann::json &args,
                          const std::string &sharedBytes)
{
    return {{"kernel", kernel}, {"grid", grid}, {"block", block}, {"shared", sharedBytes}, {"args", args}};
}

nlohmann::json libraryStep(const std::string &op, const nlohmann::json &args)
{
    return {{"library", op}, {"args", args}};
}

std::string planJson(const nlohmann::json &steps, const std::vector<std::pair<std::string, std::string>> &scratch)
{
    nlohmann::json plan;
    if (!scratch.empty()) {
        plan["scratch"] = nlohmann::json::array();
        for (const auto &[name, bytes] : scratch)
            plan["scratch"].push_back({{"name", name}, {"bytes", bytes}});
    }
    plan["steps"] = steps;
    return plan.dump(2);
}

std::string headerComment(const Op &op, const KernelTemplate &kernelTemplate, const Params &params,
                          const std::vector<ParamDef> &definitions)
{
    std::string text = "// " + op.name + ": " + kernelTemplate.name() + " template\n";
    for (const auto &definition : definitions)
        if (const auto it = params.find(definition.name); it != params.end())
            text += "//   " + definition.label + " (" + definition.name + ") = " + std::to_string(it->second) + "\n";
    return text;
}

std::string withFastMath(std::string expression)
{
    static const std::vector<std::pair<std::regex, std::string>> replacements{
        {std::regex(R"(\bexpf\()"), "__expf("},   {std::regex(R"(\blogf\()"), "__logf("},
        {std::regex(R"(\bsinf\()"), "__sinf("},   {std::regex(R"(\bcosf\()"), "__cosf("},
        {std::regex(R"(\bpowf\()"), "__powf("},   {std::regex(R"(\btanf\()"), "__tanf("},
        {std::regex(R"(\blog1pf\()"), "__logf(1.0f + "}, // same argument, one call
    };
    for (const auto &[pattern, replacement] : replacements)
        expression = std::regex_replace(expression, pattern, replacement);
    return expression;
}

int param(const Params &params, const std::string &name, int fallback)
{
    const auto it = params.find(name);
    return it == params.end() ? fallback : it->second;
}

std::vector<long long> symbolValues(const Op &op, const std::string &symbol)
{
    std::vector<long long> values;
    for (const auto &shapes : op.shapeSets)
        if (const auto it = shapes.find(symbol); it != shapes.end())
            values.push_back(it->second);
    return values;
}

} // namespace kx::codegen
