// The split norm template (LayerNorm and RMSNorm over rows too long for one block): which ops it supports,
// parameter checks, the two-kernel plan with its scratch buffer, real NVRTC compiles and plan resolution.
#include "core/codegen/splitnormtemplate.h"
#include "core/plan/launchplan.h"

#include "templatetestsupport.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

using namespace kx;
using namespace kx::test;

namespace {

// The second shape set of each op has rows that are not multiples of any chunk or vector width.
std::vector<Op> longRowOps()
{
    return {layerNormTestOp("layer_norm_long", {{{"N", 16}, {"D", 4194304}}, {{"N", 3}, {"D", 100003}}}),
            rmsNormTestOp("rms_norm_long", {{{"R", 8}, {"C", 65536}}, {{"R", 5}, {"C", 16388}}})};
}

const SplitNormTemplate kTemplate;

} // namespace

TEST_CASE("is registered before the norm template and supports only long rows")
{
    const auto &templates = kernelTemplates();
    const auto position = [&](const std::string &name) {
        return std::find_if(templates.begin(), templates.end(), [&](const auto *t) { return t->name() == name; })
               - templates.begin();
    };
    CHECK(position("norm-split") < position("norm"));
    for (const Op &op : longRowOps())
        CHECK(kTemplate.supports(op, recipeFor(op)));

    Op shortRows = longRowOps().front();
    shortRows.shapeSets.push_back({{"N", 4096}, {"D", 1024}});
    CHECK_FALSE(kTemplate.supports(shortRows, recipeFor(shortRows)));
}

TEST_CASE("defaults take float4 loads only where every row length allows them")
{
    const Op layerNorm = longRowOps()[0];
    CHECK(kTemplate.defaults(layerNorm, recipeFor(layerNorm)).at("vec") == 1); // 100003 is odd
    const Op rmsNorm = longRowOps()[1];
    const Params params = kTemplate.defaults(rmsNorm, recipeFor(rmsNorm));
    CHECK(params == (Params{{"block", 256}, {"chunk", 8192}, {"vec", 4}}));
    const std::string unstated =
        unstatedParameters(kTemplate, rmsNorm, params, kTemplate.generate(rmsNorm, recipeFor(rmsNorm), params).source);
    CHECK_MESSAGE(unstated.empty(), unstated);
}

TEST_CASE("check names what is wrong")
{
    const Op layerNorm = longRowOps()[0];
    const OpRecipe recipe = recipeFor(layerNorm);
    CHECK(kTemplate.check(layerNorm, recipe, {{"block", 256}, {"chunk", 8192}, {"vec", 4}}).find("multiple of 4")
          != std::string::npos);
    CHECK_FALSE(kTemplate.check(layerNorm, recipe, {{"block", 100}, {"chunk", 8192}, {"vec", 1}}).empty());
    Op huge = layerNorm;
    huge.shapeSets = {{{"N", 1}, {"D", 2048LL * 70000}}};
    CHECK(kTemplate.check(huge, recipe, {{"block", 256}, {"chunk", 2048}, {"vec", 1}}).find("blocks a row")
          != std::string::npos);
    Op missingBias = layerNorm;
    missingBias.inputs.pop_back();
    CHECK(kTemplate.check(missingBias, recipe, kTemplate.defaults(layerNorm, recipe)).find("or x alone")
          != std::string::npos);
}

TEST_CASE("the plan: two kernels over rows x chunks sharing a scratch buffer of two floats a chunk")
{
    const Op layerNorm = longRowOps()[0];
    const Params params{{"block", 512}, {"chunk", 4096}, {"vec", 1}};
    const auto kernel = kTemplate.generate(layerNorm, recipeFor(layerNorm), params);
    const auto plan = nlohmann::json::parse(kernel.launchPlan);
    REQUIRE(plan["steps"].size() == 2);
    CHECK(plan["steps"][0]["kernel"] == "norm_partials_kernel");
    CHECK(plan["steps"][1]["kernel"] == "norm_apply_kernel");
    CHECK(plan["steps"][0]["grid"] == nlohmann::json::array({"N", "ceil_div(D, 4096)"}));
    CHECK(plan["scratch"][0]["bytes"] == "8 * N * ceil_div(D, 4096)");
    // Shifted sums for LayerNorm (the row's first value), squares only for RMSNorm.
    CHECK(kernel.source.find("const float shift = in[0];") != std::string::npos);
    const Op rmsNorm = longRowOps()[1];
    const auto rms = kTemplate.generate(rmsNorm, recipeFor(rmsNorm), kTemplate.defaults(rmsNorm, recipeFor(rmsNorm)));
    CHECK(rms.source.find("shift") == std::string::npos);
    CHECK(rms.source.find("reinterpret_cast<const float4 *>") != std::string::npos);
}

TEST_CASE("LayerNorm without weight and bias (InstanceNorm) normalises alone and compiles" * needsNvrtc())
{
    Op instance = longRowOps()[0];
    instance.inputs.resize(1);
    const OpRecipe recipe = recipeFor(instance);
    REQUIRE(kTemplate.check(instance, recipe, kTemplate.defaults(instance, recipe)) == std::string());
    const auto kernel = kTemplate.generate(instance, recipe, kTemplate.defaults(instance, recipe));
    CHECK(kernel.source.find("result[c] = (v - mean) * scale;") != std::string::npos);
    CHECK(kernel.source.find("__restrict__ weight") == std::string::npos);
    const std::string problem = verifyCandidate(kTemplate, instance, kTemplate.defaults(instance, recipe), "sm_90");
    CHECK_MESSAGE(problem.empty(), problem);
    Op twoInputs = longRowOps()[0];
    twoInputs.inputs.resize(2);
    CHECK(kTemplate.check(twoInputs, recipe, kTemplate.defaults(instance, recipe)).find("x alone")
          != std::string::npos);
}

TEST_CASE("every valid combination compiles and resolves" * needsNvrtc())
{
    const SpaceVerification space = verifyWholeSpace(kTemplate, longRowOps(), 7);
    CHECK_MESSAGE(space.problem.empty(), space.problem);
    // 3 blocks x 5 chunks x 2 widths per op; the LayerNorm op's odd rows refuse float4.
    CHECK(space.compiled == 15 + 30);
    CHECK(space.rejected == 15);
}
