#include "core/codegen/codegenutil.h"

#include <algorithm>
#include <cctype>
#include <iomanip>
#include <regex>
#include <sstream>

namespace kx::codegen {

nlohmann::json inputArg(const std::string &name)
{
    return {{"input", name}};
}
nlohmann::json outputArg(const std::string &name)
{
    return {{"output", name}};
}
nlohmann::json scratchArg(const std::string &name)
{
    return {{"scratch", name}};
}
nlohmann::json intArg(const std::string &expression)
{
    return {{"int", expression}};
}
nlohmann::json floatArg(double value)
{
    return {{"float", value}};
}

nlohmann::json kernelStep(const std::string &kernel, const std::vector<std::string> &grid,
                          const std::vector<std::string> &block, const nlohmann::json &args,
                          const std::string &sharedBytes)
{
    return {{"kernel", kernel}, {"grid", grid}, {"block", block}, {"shared", sharedBytes}, {"args", args}};
}

nlohmann::json libraryStep(const std::string &op, const nlohmann::json &args, bool cudnnBenchmark, bool channelsLast)
{
    nlohmann::json step{{"library", op}, {"args", args}};
    if (cudnnBenchmark)
        step["cudnnBenchmark"] = true;
    if (channelsLast)
        step["channelsLast"] = true;
    return step;
}

ParamDef cudnnBenchmarkParameter()
{
    return {
        "cudnnBenchmark", {0, 1}, "cuDNN picks the convolution's algorithm by timing them (1) or by heuristics (0)"};
}

ParamDef convChannelsLastParameter()
{
    return {"convChannelsLast",
            {0, 1},
            "memory format of library convolutions (1: channels-last copies, where cuDNN's tensor-core kernels run)"};
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
        {std::regex(R"(\bexpf\()"), "__expf("},          {std::regex(R"(\blogf\()"), "__logf("},
        {std::regex(R"(\bsinf\()"), "__sinf("},          {std::regex(R"(\bcosf\()"), "__cosf("},
        {std::regex(R"(\bpowf\()"), "__powf("},          {std::regex(R"(\btanf\()"), "__tanf("},
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

std::optional<long long> dimensionValue(const std::string &dimension, const ShapeSet &shapes)
{
    const auto digit = [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) != 0; };
    if (!dimension.empty() && std::all_of(dimension.begin(), dimension.end(), digit))
        return std::stoll(dimension);
    if (const auto it = shapes.find(dimension); it != shapes.end())
        return it->second;
    return std::nullopt;
}

bool isIdentifier(const std::string &name)
{
    if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
        return false;
    return std::all_of(name.begin(), name.end(),
                       [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; });
}

std::string checkParamValues(const Params &params, const std::vector<ParamDef> &definitions)
{
    for (const auto &definition : definitions) {
        const auto it = params.find(definition.name);
        if (it == params.end())
            return "missing parameter " + definition.name;
        if (std::find(definition.values.begin(), definition.values.end(), it->second) == definition.values.end())
            return definition.label + " " + std::to_string(it->second) + " is not one of the allowed values";
    }
    return {};
}

std::string checkParams(const Params &params, const std::vector<ParamDef> &definitions)
{
    if (auto problem = checkParamValues(params, definitions); !problem.empty())
        return problem;
    for (const auto &[name, value] : params)
        if (std::none_of(definitions.begin(), definitions.end(), [&](const ParamDef &d) { return d.name == name; }))
            return "unknown parameter " + name;
    return {};
}

GeneratedKernel rejectedKernel(const std::string &templateName, const std::string &problem)
{
    std::string quoted;
    for (const char ch : problem)
        quoted += ch == '"' || ch == '\\' ? std::string("\\") + ch : std::string(1, ch);
    return {"#error \"" + templateName + " template: " + quoted + "\"\n", ""};
}

std::string epsLiteral(double value)
{
    std::ostringstream out;
    out << std::setprecision(9) << std::scientific << value << 'f';
    return out.str();
}

} // namespace kx::codegen
