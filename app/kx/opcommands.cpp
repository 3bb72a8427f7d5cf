// kx ops, kx translate OP
#include "commands.h"
#include "format.h"

#include "core/codegen/oprecipe.h"
#include "core/domain/domainjson.h"
#include "core/ops/builtinops.h"
#include "core/plan/nvrtccompiler.h"
#include "core/search/templateproposer.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <optional>
#include <vector>

namespace kx::cli {
namespace {

std::string shapeText(const Op &op)
{
    std::string text;
    for (const auto &[symbol, value] : op.shapeSets.front())
        text += (text.empty() ? "" : " ") + symbol + "=" + std::to_string(value);
    return text;
}

int runOps(bool json)
{
    if (json) {
        std::cout << nlohmann::json(builtInOps()).dump(2) << '\n';
        return Ok;
    }
    TextTable table({"OP", "KIND", "DEFAULT SHAPES", "DESCRIPTION"});
    for (const auto &op : builtInOps()) {
        const auto recipe = recipeOf(op);
        table.addRow({op.name, recipe ? recipe->family : "?", shapeText(op), op.description});
    }
    table.print(std::cout);
    std::cout << builtInOps().size() << " built-in op(s)\n";
    return Ok;
}

// "bm=128" -> {"bm", 128}
std::optional<std::pair<std::string, int>> parseParam(const std::string &text)
{
    const auto equals = text.find('=');
    if (equals == std::string::npos || equals == 0)
        return std::nullopt;
    try {
        std::size_t used = 0;
        const int value = std::stoi(text.substr(equals + 1), &used);
        if (used != text.size() - equals - 1)
            return std::nullopt;
        return std::pair{text.substr(0, equals), value};
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

int runTranslate(const std::string &name, const std::string &arch, bool json, const std::string &templateName,
                 const std::vector<std::string> &paramTexts)
{
    const Op *op = findBuiltInOp(name);
    if (!op) {
        std::cerr << "kx: unknown op '" << name << "' (kx ops lists them)\n";
        return BadInput;
    }
    Params changes;
    for (const auto &text : paramTexts) {
        const auto param = parseParam(text);
        if (!param) {
            std::cerr << "kx: --param wants NAME=INTEGER, not '" << text << "'\n";
            return Usage;
        }
        changes[param->first] = param->second;
    }
    if (!changes.empty() && templateName.empty()) {
        std::cerr << "kx: --param needs --template (the parameters belong to a template)\n";
        return Usage;
    }
    const auto candidate = templateName.empty() ? translateOp(*op) : generateFromTemplate(*op, templateName, changes);
    if (!candidate) {
        std::cerr << "kx: cannot translate " << name << ": " << candidate.error().message << '\n';
        return exitCodeFor(candidate.error());
    }
    if (json) {
        std::cout << nlohmann::json(*candidate).dump(2) << '\n';
    } else {
        std::cout << candidate->source << "\n// launch plan\n" << candidate->launchPlan << '\n';
    }
    if (arch.empty())
        return Ok;
    if (!NvrtcCompiler::available()) {
        std::cerr << "kx: built without NVRTC: cannot compile\n";
        return NoGpu;
    }
    CompileOptions options;
    options.arch = arch;
    const auto compiled = NvrtcCompiler().compile(candidate->source, options);
    std::cerr << (compiled.ok ? "compiled" : "compile error") << " for " << arch << ": " << compiled.stats.registers
              << " registers, " << compiled.stats.spillBytes << " bytes local, " << compiled.stats.compileMs << " ms\n";
    if (!compiled.ok)
        std::cerr << compiled.stats.log << '\n';
    return compiled.ok ? Ok : Failure;
}

} // namespace

void addOpCommands(CLI::App &app, Action &action)
{
    auto json = std::make_shared<bool>(false);
    auto *ops = app.add_subcommand("ops", "List the built-in op catalog");
    ops->add_flag("--json", *json, "Print the op definitions as JSON");
    ops->callback([&action, json] { action = [json] { return runOps(*json); }; });

    auto name = std::make_shared<std::string>();
    auto arch = std::make_shared<std::string>();
    auto *translate =
        app.add_subcommand("translate", "Print the first candidate (CUDA source and launch plan) for an op");
    translate->add_option("op", *name, "Op name (see kx ops)")->required();
    translate->add_option("--compile", *arch, "Also compile it with NVRTC for this arch, e.g. sm_90a");
    translate->add_flag("--json", *json, "Print the candidate as JSON");
    auto templateName = std::make_shared<std::string>();
    auto params = std::make_shared<std::vector<std::string>>();
    translate->add_option("--template", *templateName,
                          "Generate from this code template instead of the first that supports the op "
                          "(e.g. gemm-tensorcore)");
    translate->add_option("--param", *params, "With --template: set a template parameter, NAME=VALUE (repeatable)");
    translate->callback([&action, name, arch, json, templateName, params] {
        action = [=] { return runTranslate(*name, *arch, *json, *templateName, *params); };
    });
}

} // namespace kx::cli
