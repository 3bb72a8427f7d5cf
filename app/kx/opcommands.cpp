// kx ops, kx translate OP
#include "commands.h"
#include "format.h"

#include "core/codegen/oprecipe.h"
#include "core/domain/domainjson.h"
#include "core/eval/nvrtccompiler.h"
#include "core/ops/builtinops.h"
#include "core/search/templateproposer.h"

#include <nlohmann/json.hpp>

#include <iostream>

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
    std::cout << column("OP", 36) << column("KIND", 14) << column("DEFAULT SHAPES", 40) << "DESCRIPTION\n";
    for (const auto &op : builtInOps()) {
        const auto recipe = recipeOf(op);
        std::cout << column(op.name, 36) << column(recipe ? recipe->family : "?", 14) << column(shapeText(op), 40)
                  << op.description << '\n';
    }
    std::cout << builtInOps().size() << " built-in op(s)\n";
    return Ok;
}

int runTranslate(const std::string &name, const std::string &arch, bool json)
{
    const Op *op = findBuiltInOp(name);
    if (!op) {
        std::cerr << "kx: unknown op '" << name << "' (kx ops lists them)\n";
        return BadInput;
    }
    const auto candidate = translateOp(*op);
    if (!candidate) {
        std::cerr << "kx: cannot translate " << name << ": " << candidate.error().message << '\n';
        return Failure;
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
    auto *translate = app.add_subcommand("translate", "Print the first candidate (CUDA source and launch plan) for an op");
    translate->add_option("op", *name, "Op name (see kx ops)")->required();
    translate->add_option("--compile", *arch, "Also compile it with NVRTC for this arch, e.g. sm_90");
    translate->add_flag("--json", *json, "Print the candidate as JSON");
    translate->callback([&action, name, arch, json] { action = [=] { return runTranslate(*name, *arch, *json); }; });
}

} // namespace kx::cli
