// GroupNorm in the norm templates: a layernorm recipe whose weight and bias are per channel (groups, channelSize).
// The recipe's JSON, the channel index both templates generate and pass in their plans, what check() refuses, that
// LayerNorm's kernels do not change, and real NVRTC compiles of the split template's whole space and of sampled
// variants of the one-block template.
#include "core/codegen/rowtemplates.h"
#include "core/codegen/splitnormtemplate.h"

#include "templatetestsupport.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

using namespace kx;
using namespace kx::test;

namespace {

// x as rows R = N * G of D = (C / G) * S elements; weight and bias of [C]; channels of S elements.
Op groupNormOp(const std::string &name, std::vector<ShapeSet> shapeSets)
{
    Op op;
    op.name = name;
    op.inputs = {tensor("x", {"R", "D"}), tensor("weight", {"C"}), tensor("bias", {"C"})};
    op.outputs = {tensor("out", {"R", "D"})};
    op.shapeSets = std::move(shapeSets);
    op.recipe = R"j({"family": "norm", "reduction": "layernorm", "rows": "R", "cols": "D", "groups": "G",
                     "channelSize": "S", "eps": 1e-5})j";
    return op;
}

ShapeSet shapes(long long n, long long c, long long g, long long s)
{
    return {{"R", n * g}, {"D", c / g * s}, {"C", c}, {"G", g}, {"S", s}};
}

// Rows of a million elements, then rows of 16884 whose channels of 4221 are not whole float4s.
Op longRows()
{
    return groupNormOp("group_norm_long", {shapes(16, 64, 4, 65536), shapes(3, 16, 4, 4221)});
}

// Rows of 252 elements in channels of 63, then 12 channels in 4 groups of 37 x 37 pixels (odd rows).
Op shortRows()
{
    return groupNormOp("group_norm_short", {shapes(5, 16, 4, 63), shapes(3, 12, 4, 37 * 37)});
}

Op layerNorm()
{
    return layerNormTestOp("layer_norm", {{{"N", 16}, {"D", 1048576}}, {{"N", 3}, {"D", 100003}}});
}

const SplitNormTemplate kSplit;
const NormTemplate kNorm;

} // namespace

TEST_CASE("a recipe's channel weights travel in its JSON and are absent where weights are per column")
{
    const OpRecipe grouped = recipeFor(longRows());
    CHECK(grouped.groups == "G");
    CHECK(grouped.channelSize == "S");
    CHECK(hasChannelWeights(grouped));
    Op copy = longRows();
    copy.recipe = toJson(grouped);
    CHECK(recipeFor(copy) == grouped);

    const OpRecipe plain = recipeFor(layerNorm());
    CHECK_FALSE(hasChannelWeights(plain));
    CHECK(toJson(plain).find("groups") == std::string::npos);
    CHECK(toJson(plain).find("channelSize") == std::string::npos);
    OpRecipe oneGroup = plain;
    oneGroup.groups = "4"; // GroupNorm of [N, C]: channels of one element, still indexed by group
    CHECK(hasChannelWeights(oneGroup));
}

TEST_CASE("both templates index weight and bias by channel and pass groups and channel size")
{
    for (const auto &[kernelTemplate, op] : {std::pair<const KernelTemplate *, Op>{&kSplit, longRows()},
                                             std::pair<const KernelTemplate *, Op>{&kNorm, shortRows()}}) {
        CAPTURE(kernelTemplate->name());
        const OpRecipe recipe = recipeFor(op);
        REQUIRE(kernelTemplate->supports(op, recipe));
        const Params params = kernelTemplate->defaults(op, recipe);
        REQUIRE(kernelTemplate->check(op, recipe, params) == std::string());
        const auto kernel = kernelTemplate->generate(op, recipe, params);
        CHECK(kernel.source.find(
                  "const unsigned firstChannel = (unsigned)(row % groups) * (unsigned)(cols / channelSize);")
              != std::string::npos);
        CHECK(
            kernel.source.find("weight[firstChannel + (unsigned)c / channelSize32] + bias[firstChannel + (unsigned)c / "
                               "channelSize32]")
            != std::string::npos);
        CHECK(kernel.source.find("weight[c]") == std::string::npos);
        // The split template's chunks inside one channel read its weight and bias once.
        CHECK((kernel.source.find("result[c] = (v - mean) * scale * channelWeight + channelBias;") != std::string::npos)
              == (kernelTemplate == &kSplit));
        const auto plan = nlohmann::json::parse(kernel.launchPlan);
        const auto &args = plan["steps"].back()["args"];
        REQUIRE(args.size() >= 2);
        CHECK(args[args.size() - 2] == nlohmann::json{{"int", "G"}});
        CHECK(args[args.size() - 1] == nlohmann::json{{"int", "S"}});
        const std::string unstated = unstatedParameters(*kernelTemplate, op, params, kernel.source);
        CHECK_MESSAGE(unstated.empty(), unstated);
    }
}

TEST_CASE("LayerNorm's kernels read weights per column and take no channel arguments")
{
    const Op op = layerNorm();
    const OpRecipe recipe = recipeFor(op);
    for (const KernelTemplate *kernelTemplate :
         {static_cast<const KernelTemplate *>(&kSplit), static_cast<const KernelTemplate *>(&kNorm)}) {
        CAPTURE(kernelTemplate->name());
        const auto kernel = kernelTemplate->generate(op, recipe, kernelTemplate->defaults(op, recipe));
        CHECK(kernel.source.find("weight[c] + bias[c]") != std::string::npos);
        CHECK(kernel.source.find("channelSize") == std::string::npos);
        CHECK(kernel.launchPlan.find("channelSize") == std::string::npos);
    }
}

TEST_CASE("check names what channel weights need")
{
    for (const KernelTemplate *kernelTemplate :
         {static_cast<const KernelTemplate *>(&kSplit), static_cast<const KernelTemplate *>(&kNorm)}) {
        CAPTURE(kernelTemplate->name());
        const Op op = longRows();
        const OpRecipe recipe = recipeFor(op);
        const Params params = kernelTemplate->defaults(op, recipe);
        REQUIRE(kernelTemplate->check(op, recipe, params) == std::string());

        Op torn = op; // a row that ends inside a channel
        torn.shapeSets[1]["D"] += 1;
        CHECK(kernelTemplate->check(torn, recipe, with(params, {{"vec", 1}})).find("not whole channels")
              != std::string::npos);
        Op unbound = op;
        unbound.shapeSets[0].erase("S");
        CHECK(kernelTemplate->check(unbound, recipe, params).find("does not bind") != std::string::npos);
        Op huge = op; // channel indices in 32 bits
        huge.shapeSets[0] = shapes(1, 4, 4, 1LL << 31);
        CHECK(kernelTemplate->check(huge, recipe, params).find("32 bits") != std::string::npos);
    }
    // RMSNorm and LayerNorm without its weights have no channels to index.
    Op rms = longRows();
    rms.inputs.pop_back();
    OpRecipe rmsRecipe = recipeFor(rms);
    rmsRecipe.reduction = "rmsnorm";
    CHECK(kSplit.check(rms, rmsRecipe, kSplit.defaults(rms, rmsRecipe)).find("per-channel weights")
          != std::string::npos);
    Op bare = longRows();
    bare.inputs.resize(1);
    CHECK(kSplit.check(bare, recipeFor(bare), kSplit.defaults(bare, recipeFor(bare))).find("per-channel weights")
          != std::string::npos);
}

TEST_CASE("the split template's whole space compiles and resolves with channel weights" * needsNvrtc())
{
    const SpaceVerification space = verifyWholeSpace(kSplit, {longRows()}, 13);
    CHECK_MESSAGE(space.problem.empty(), space.problem);
    // 3 blocks x 5 chunks x 2 widths; every row length is a multiple of 4.
    CHECK(space.compiled == 30);
    CHECK(space.rejected == 0);
}

TEST_CASE("sampled variants of the one-block template compile and resolve with channel weights" * needsNvrtc())
{
    for (const Op &op : {shortRows(), longRows()}) {
        CAPTURE(op.name);
        const auto samples = sampleValid(kNorm, op, 19, 6);
        REQUIRE(samples.size() == 6);
        for (const auto &params : samples) {
            const std::string problem = verifyCandidate(kNorm, op, params, "sm_90");
            CHECK_MESSAGE(problem.empty(), problem);
        }
    }
}
