#include "kerneltestsupport.h"

#include "core/codegen/oprecipe.h"
#include "core/plan/launchplan.h"
#include "core/plan/nvrtccompiler.h"
#include "core/search/templateproposer.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <iostream>
#include <map>

namespace kx::test {

std::string translationProblem(const Op &op, const std::string &arch)
{
    const auto candidate = translateOp(op);
    if (!candidate)
        return "translate: " + candidate.error().message;
    if (!NvrtcCompiler::available())
        return "skip";
    CompileOptions options;
    options.arch = arch;
    const auto compiled = NvrtcCompiler().compile(candidate->source, options);
    if (!compiled.ok)
        return "compile: " + compiled.error + "\n" + compiled.stats.log;
    const auto plan = parseLaunchPlan(candidate->launchPlan);
    if (!plan)
        return "plan: " + plan.error().message;
    for (const auto &shapes : op.shapeSets)
        if (const auto resolved = resolveLaunchPlan(*plan, op, shapes, compiled.kernels); !resolved)
            return "resolve: " + resolved.error().message;
    return {};
}

} // namespace kx::test

namespace kx::test {

std::vector<PipelineStage> pipelineStages(const Expected<Op> &op)
{
    REQUIRE_MESSAGE(op, (op ? "" : op.error().message));
    const auto recipe = recipeOf(*op);
    REQUIRE(recipe);
    REQUIRE(recipe->family == "pipeline");
    auto stages = pipelineFromJson(nlohmann::json::parse(recipe->stages));
    REQUIRE_MESSAGE(stages, (stages ? "" : stages.error().message));
    return *stages;
}

} // namespace kx::test

namespace kx::test {

Op makeOp(std::vector<TensorSpec> inputs, TensorSpec output, std::vector<ShapeSet> shapeSets)
{
    Op op;
    op.name = "kb/test";
    op.sourceKind = SourceKind::KernelBench;
    op.inputs = std::move(inputs);
    op.outputs = {std::move(output)};
    op.shapeSets = std::move(shapeSets);
    return op;
}

void checkCompiles(const Op &op)
{
    const auto problem = translationProblem(op);
    if (problem != "skip")
        CHECK_MESSAGE(problem.empty(), problem);
}

OpRecipe recipeOfTranslation(const Expected<Op> &op)
{
    REQUIRE_MESSAGE(op, (op ? "" : op.error().message));
    const auto recipe = recipeOf(*op);
    REQUIRE(recipe);
    return *recipe;
}

const Expected<ImportedProblem> *importOnce(const std::string &path)
{
    static const bool haveTorch = static_cast<bool>(ProblemImporter().findPython());
    if (!haveTorch)
        return nullptr;
    static const bool sandbox = [] {
        const bool found = ProblemImporter::sandboxAvailable();
        if (!found)
            std::cout << "note: bubblewrap is not installed here: importing unconfined (--no-sandbox)\n";
        return found;
    }();
    static std::map<std::string, Expected<ImportedProblem>> cache;
    auto it = cache.find(path);
    if (it == cache.end()) {
        ImportOptions options;
        options.sandbox = sandbox;
        it = cache.emplace(path, ProblemImporter(options).importFile(path)).first;
    }
    return &it->second;
}

const Expected<ImportedProblem> &importOnceOrSkip(const std::string &path)
{
    const auto *imported = importOnce(path);
    if (!imported) {
        std::cout << "skipped: " << ProblemImporter().findPython().error().message << '\n';
        std::exit(77);
    }
    return *imported;
}

const Op &importedOp(const std::string &path)
{
    const auto &result = importOnceOrSkip(path);
    REQUIRE_MESSAGE(result, (result ? "" : result.error().message));
    REQUIRE_MESSAGE(result->translated(), result->translationError);
    return result->op;
}

} // namespace kx::test
