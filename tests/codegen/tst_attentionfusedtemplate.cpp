// The attention-fused template: where it applies (head dims up to 128; KernelBench's 1024 stays with the composed
// attention template), its plan validated against every shape set, its refusals, and NVRTC compiles of its whole
// parameter space.
#include "core/codegen/attentionfusedtemplate.h"
#include "core/plan/launchplan.h"

#include "templatetestsupport.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

using namespace kx;
using namespace kx::test;

namespace {

// q [B, H, L, E], k [B, H, S, E], v [B, H, S, EV]: sizes that are no multiples of a tile, L != S and E != EV.
Op attentionOp(long long headDim, bool causal = false)
{
    Op op;
    op.name = "attention_fused_test";
    op.inputs = {tensor("Q", {"B", "H", "L", "E"}), tensor("K", {"B", "H", "S", "E"}), tensor("V", {"B", "H", "S", "EV"})};
    op.outputs = {tensor("out", {"B", "H", "L", "EV"})};
    op.shapeSets = {{{"B", 2}, {"H", 3}, {"L", 77}, {"S", 50}, {"E", headDim}, {"EV", 24}},
                    {{"B", 1}, {"H", 5}, {"L", 33}, {"S", 129}, {"E", headDim / 2}, {"EV", 72}}};
    op.recipe = nlohmann::json{{"family", "attention"}, {"leading", {"B", "H"}}, {"m", "L"}, {"n", "S"}, {"k", "E"},
                               {"scale", 0.125},        {"causal", causal}}
                    .dump();
    return op;
}

const AttentionFusedTemplate kTemplate;

} // namespace

TEST_CASE("applies to head dims up to 128 only; the translation stays with the composed template")
{
    const KernelTemplate *found = findKernelTemplate("attention-fused");
    REQUIRE(found);
    const Op small = attentionOp(40), largest = attentionOp(128), long1024 = attentionOp(1024);
    CHECK(found->supports(small, recipeFor(small)));
    CHECK(found->supports(largest, recipeFor(largest)));
    CHECK_FALSE(found->supports(long1024, recipeFor(long1024)));
    CHECK(kTemplate.check(long1024, recipeFor(long1024), kTemplate.defaults(long1024, recipeFor(long1024)))
          == "the attention-fused template keeps head dims up to 128 on chip (the attention template takes longer "
             "ones)");
    // The composed template comes first in the registry: it is the translation, the fused kernel a switch.
    const KernelTemplate *first = nullptr;
    for (const auto *kernelTemplate : kernelTemplates())
        if (!first && kernelTemplate->supports(small, recipeFor(small)))
            first = kernelTemplate;
    REQUIRE(first);
    CHECK(first->name() == "attention");
}

TEST_CASE("the plan launches one block per BM query rows of each matrix, with the shared tiles it declares")
{
    const Op op = attentionOp(40, true);
    const auto recipe = recipeFor(op);
    const Params params = kTemplate.defaults(op, recipe);
    REQUIRE(kTemplate.check(op, recipe, params) == std::string());
    const auto kernel = kTemplate.generate(op, recipe, params);
    CHECK(kernel.source.rfind("// attention_fused_test: attention-fused template", 0) == 0);
    CHECK(kernel.source.find("constexpr bool CAUSAL = true;") != std::string::npos);
    CHECK(kernel.source.find("constexpr int HEAD = 40;") != std::string::npos); // the largest E of the shape sets
    CHECK(kernel.source.find("constexpr int VALUE_PER_THREAD = 18;") != std::string::npos); // 72 over 4 threads
    CHECK(kernel.source.find("dot * 1.250000000e-01f") != std::string::npos);
    const std::string unstated = unstatedParameters(kTemplate, op, params, kernel.source);
    CHECK_MESSAGE(unstated.empty(), unstated);

    const auto plan = parseLaunchPlan(kernel.launchPlan);
    REQUIRE(plan);
    for (const auto &shapes : op.shapeSets) {
        const auto resolved = resolveLaunchPlan(*plan, op, shapes, parseKernelSignatures(kernel.source));
        REQUIRE_MESSAGE(resolved, (resolved ? "" : resolved.error().message));
        REQUIRE(resolved->steps.size() == 1);
        const auto &step = std::get<ResolvedKernelStep>(resolved->steps.front());
        CHECK(step.grid == std::array<std::int64_t, 3>{(shapes.at("L") + 63) / 64, shapes.at("B") * shapes.at("H"), 1});
        CHECK(step.block[0] == 64 * 4);
        // q rows, a key tile, a value tile (72 columns) and the tile's probabilities.
        CHECK(step.sharedBytes == 4 * (64 * 41 + 32 * 41 + 32 * 72 + 64 * 33));
        REQUIRE(step.args.size() == 8);
        CHECK(step.args[4].intValue == shapes.at("L"));
        CHECK(step.args[5].intValue == shapes.at("S"));
        CHECK(step.args[6].intValue == shapes.at("E"));
        CHECK(step.args[7].intValue == shapes.at("EV"));
    }
}

TEST_CASE("check() refuses clashing names, too many threads and too much shared memory")
{
    Op op = attentionOp(64);
    const auto recipe = recipeFor(op);
    const auto defaults = kTemplate.defaults(op, recipe);
    CHECK(kTemplate.check(op, recipe, with(defaults, {{"bm", 128}, {"group", 8}})) == std::string()); // 1024 threads
    const Op wide = attentionOp(128);
    // 4 * (128 * 129 + 64 * 129 + 64 * 72 + 128 * 65): q rows, key and value tiles, probabilities.
    CHECK(kTemplate.check(wide, recipeFor(wide), with(defaults, {{"bm", 128}, {"bn", 64}}))
          == "150784 bytes of shared memory exceed 101376");
    op.inputs[2].name = "row";
    CHECK(kTemplate.check(op, recipe, defaults) == "tensor name 'row' clashes with a name of the generated code");
    op.inputs[2].name = "V";
    op.inputs[2].shape = {"B", "H", "L", "EV"};
    CHECK(kTemplate.check(op, recipe, defaults) == "tensor V is [B, H, L, EV], the recipe needs [B, H, S, EV]");
}

TEST_CASE("the whole parameter space compiles with NVRTC and resolves" * needsNvrtc())
{
    const auto result = verifyWholeSpace(kTemplate, {attentionOp(40), attentionOp(128, true)}, 5);
    CHECK_MESSAGE(result.problem.empty(), result.problem);
    CHECK(result.compiled >= 40);
}
