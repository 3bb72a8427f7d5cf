// The cluster norm template (a row in the shared memory of one Hopper thread-block cluster): which ops it supports,
// its defaults (the smallest cluster that holds the row), parameter checks with their reasons, the plan (one kernel
// step in clusters, with the chunk's dynamic shared memory), the generated source, and real NVRTC compiles for
// sm_90 and sm_90a (and the refusal to compile for sm_80).
#include "core/codegen/clusternormtemplate.h"
#include "core/plan/launchplan.h"

#include "templatetestsupport.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>

using namespace kx;
using namespace kx::test;

namespace {

// LayerNorm with weight and bias: rows of 1 MB (KernelBench's InstanceNorm rows), then odd rows of 100003.
Op layerNorm()
{
    return layerNormTestOp("layer_norm_cluster", {{{"N", 16}, {"D", 262144}}, {{"N", 3}, {"D", 100003}}});
}

// RMSNorm: rows of 256 KB, then odd rows just past the one-block bound.
Op rmsNorm()
{
    return rmsNormTestOp("rms_norm_cluster", {{{"R", 8}, {"C", 65536}}, {{"R", 5}, {"C", 16387}}});
}

// InstanceNorm without affine transform: x alone, KernelBench's 34 (112 x 64 rows of 512 x 512), then odd rows.
Op instanceNorm()
{
    Op op;
    op.name = "instance_norm_cluster";
    op.inputs = {tensor("x", {"R", "D"})};
    op.outputs = {tensor("out", {"R", "D"})};
    op.shapeSets = {{{"R", 112 * 64}, {"D", 512 * 512}}, {{"R", 15}, {"D", 129 * 131}}};
    op.recipe = R"j({"family": "norm", "reduction": "layernorm", "rows": "R", "cols": "D", "eps": 1e-5})j";
    return op;
}

ShapeSet groupShapes(long long n, long long c, long long g, long long s)
{
    return {{"R", n * g}, {"D", c / g * s}, {"C", c}, {"G", g}, {"S", s}};
}

// GroupNorm: weight and bias per channel; channels of 4096, then of 4221 (not whole float4s).
Op groupNorm(std::vector<ShapeSet> shapeSets = {groupShapes(16, 64, 16, 4096), groupShapes(3, 16, 4, 4221)})
{
    Op op;
    op.name = "group_norm_cluster";
    op.inputs = {tensor("x", {"R", "D"}), tensor("weight", {"C"}), tensor("bias", {"C"})};
    op.outputs = {tensor("out", {"R", "D"})};
    op.shapeSets = std::move(shapeSets);
    op.recipe = R"j({"family": "norm", "reduction": "layernorm", "rows": "R", "cols": "D", "groups": "G",
                     "channelSize": "S", "eps": 1e-5})j";
    return op;
}

std::vector<Op> clusterOps()
{
    return {layerNorm(), rmsNorm(), instanceNorm(), groupNorm()};
}

Op withCols(Op op, long long cols)
{
    op.shapeSets = {{{"N", 4}, {"D", cols}}};
    return op;
}

const ClusterNormTemplate kTemplate;

std::ptrdiff_t position(const std::string &name)
{
    const auto &templates = kernelTemplates();
    return std::find_if(templates.begin(), templates.end(), [&](const auto *t) { return t->name() == name; })
           - templates.begin();
}

} // namespace

TEST_CASE("is registered after norm-split, which stays the translation, and before norm")
{
    REQUIRE(findKernelTemplate("norm-cluster") != nullptr);
    CHECK(position("norm-split") < position("norm-cluster"));
    CHECK(position("norm-cluster") < position("norm"));
}

TEST_CASE("supports long rows that fit a cluster of 16 blocks, in every shape set")
{
    for (const Op &op : clusterOps())
        CHECK_MESSAGE(kTemplate.supports(op, recipeFor(op)), op.name);

    const Op layer = layerNorm();
    const OpRecipe recipe = recipeFor(layer);
    CHECK_FALSE(kTemplate.supports(withCols(layer, 4096), recipe));   // one block's row
    CHECK(kTemplate.supports(withCols(layer, 16384), recipe));        // norm-split's shortest
    CHECK(kTemplate.supports(withCols(layer, 819200), recipe));       // 16 blocks of 200 KB
    CHECK_FALSE(kTemplate.supports(withCols(layer, 819201), recipe)); // a float4 more
    // KernelBench's 35 (GroupNorm of 64 channels of 512 x 512 in 8 groups): rows of 8 MB.
    const Op large = groupNorm({groupShapes(112, 64, 8, 512 * 512)});
    CHECK_FALSE(kTemplate.supports(large, recipeFor(large)));

    Op mixed = layer;
    mixed.shapeSets.push_back({{"N", 4096}, {"D", 1024}});
    CHECK_FALSE(kTemplate.supports(mixed, recipe));
    OpRecipe strided = recipe;
    strided.inner = "S";
    CHECK_FALSE(kTemplate.supports(layer, strided));
    OpRecipe softmax = recipe;
    softmax.family = "softmax";
    CHECK_FALSE(kTemplate.supports(layer, softmax));
}

TEST_CASE("the defaults take 1024 threads, float4s and the smallest cluster that holds every row")
{
    const auto defaults = [](const Op &op) { return kTemplate.defaults(op, recipeFor(op)); };
    CHECK(defaults(layerNorm()) == Params{{"cluster", 8}, {"block", 1024}, {"vec", 4}}); // 1 MB rows
    CHECK(defaults(rmsNorm()).at("cluster") == 2);                                       // 256 KB rows
    CHECK(defaults(withCols(layerNorm(), 100003)).at("cluster") == 2);                   // chunks of 200016 bytes
    CHECK(defaults(withCols(layerNorm(), 150001)).at("cluster") == 4);
    CHECK(defaults(withCols(layerNorm(), 204801)).at("cluster") == 8);
    CHECK(defaults(withCols(layerNorm(), 409601)).at("cluster") == 16); // past the portable 8 blocks
    for (const Op &op : clusterOps()) {
        const Params params = defaults(op);
        CHECK_MESSAGE(kTemplate.check(op, recipeFor(op), params).empty(), op.name);
        const std::string unstated =
            unstatedParameters(kTemplate, op, params, kTemplate.generate(op, recipeFor(op), params).source);
        CHECK_MESSAGE(unstated.empty(), unstated);
    }
}

TEST_CASE("check names what is wrong")
{
    const Op layer = layerNorm();
    const OpRecipe recipe = recipeFor(layer);
    const Params defaults = kTemplate.defaults(layer, recipe);
    CHECK(kTemplate.check(layer, recipe, with(defaults, {{"cluster", 4}}))
              .find("bytes of shared memory a block, more than 204800")
          != std::string::npos);
    CHECK(kTemplate.check(layer, recipe, with(defaults, {{"cluster", 3}})).find("3 is not one of the allowed")
          != std::string::npos);
    CHECK(kTemplate.check(layer, recipe, with(defaults, {{"block", 100}})).find("100 is not one of the allowed")
          != std::string::npos);
    CHECK(kTemplate.check(layer, recipe, withChanges(defaults, "-vec")).find("missing") != std::string::npos);

    Op twoInputs = layer;
    twoInputs.inputs.resize(2);
    CHECK(kTemplate.check(twoInputs, recipe, defaults).find("x alone") != std::string::npos);
    const Op rms = rmsNorm();
    Op rmsWithBias = rms;
    rmsWithBias.inputs.push_back(tensor("b", {"C"}));
    CHECK(kTemplate.check(rmsWithBias, recipeFor(rms), kTemplate.defaults(rms, recipeFor(rms))).find("2 inputs")
          != std::string::npos);
    OpRecipe unknown = recipe;
    unknown.reduction = "batchnorm";
    CHECK(kTemplate.check(layer, unknown, defaults).find("unknown normalisation") != std::string::npos);

    Op clash = layer;
    clash.inputs[0].name = "tile";
    CHECK(kTemplate.check(clash, recipe, defaults).find("name of the generated code") != std::string::npos);
    Op unbound = layer;
    unbound.shapeSets = {{{"N", 4}}};
    CHECK(kTemplate.check(unbound, recipe, defaults).find("does not bind") != std::string::npos);
    // A GroupNorm whose channels do not divide its rows is channelweights' refusal.
    Op torn = groupNorm({{{"R", 4}, {"D", 20000}, {"C", 8}, {"G", 4}, {"S", 3000}}});
    CHECK(kTemplate.check(torn, recipeFor(torn), kTemplate.defaults(torn, recipeFor(torn))).find("whole channels")
          != std::string::npos);
    // Rejected parameters generate code that does not compile, with the reason.
    CHECK(kTemplate.generate(layer, recipe, with(defaults, {{"cluster", 2}})).launchPlan.empty());
}

TEST_CASE("the plan: one kernel in clusters of a row, with the chunk's dynamic shared memory")
{
    const Op layer = layerNorm();
    const OpRecipe recipe = recipeFor(layer);
    const auto kernel = kTemplate.generate(layer, recipe, {{"cluster", 8}, {"block", 512}, {"vec", 4}});
    const auto plan = nlohmann::json::parse(kernel.launchPlan);
    REQUIRE(plan["steps"].size() == 1);
    const auto &step = plan["steps"][0];
    CHECK(step["kernel"] == "norm_cluster_kernel");
    CHECK(step["grid"] == nlohmann::json::array({"N * 8"}));
    CHECK(step["block"] == nlohmann::json::array({"512"}));
    CHECK(step["cluster"] == nlohmann::json::array({"8"}));
    CHECK(step["shared"] == "16 * ceil_div(D, 32) + 16");
    CHECK_FALSE(plan.contains("scratch"));

    const auto parsed = parseLaunchPlan(kernel.launchPlan);
    REQUIRE(parsed);
    const auto signatures = parseKernelSignatures(kernel.source);
    DeviceLimits hopper;
    hopper.computeCapability = 90;
    const auto resolved = resolveLaunchPlan(*parsed, layer, layer.shapeSets[0], signatures, hopper);
    REQUIRE_MESSAGE(resolved, (resolved ? "" : resolved.error().message));
    const auto &launch = std::get<ResolvedKernelStep>(resolved->steps[0]);
    CHECK(launch.grid == std::array<std::int64_t, 3>{16 * 8, 1, 1});
    CHECK(launch.hasCluster);
    CHECK(launch.cluster == std::array<std::int64_t, 3>{8, 1, 1});
    CHECK(launch.sharedBytes == 262144 * 4 / 8 + 16); // a chunk of 32768 floats and a float4 of alignment slack
    // The odd rows: chunks of 12504 floats (whole float4s), the last block's shorter.
    const auto odd = resolveLaunchPlan(*parsed, layer, layer.shapeSets[1], signatures, hopper);
    REQUIRE(odd);
    CHECK(std::get<ResolvedKernelStep>(odd->steps[0]).sharedBytes == 12504 * 4 + 16);

    DeviceLimits ampere;
    ampere.computeCapability = 80;
    const auto refused = resolveLaunchPlan(*parsed, layer, layer.shapeSets[0], signatures, ampere);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find("clusters need sm_90") != std::string::npos);
}

TEST_CASE("the source stages the row once, exchanges partial sums across the cluster and normalises from the tile")
{
    const Op layer = layerNorm();
    const std::string source =
        kTemplate.generate(layer, recipeFor(layer), kTemplate.defaults(layer, recipeFor(layer))).source;
    CHECK(source.find("#error \"thread-block clusters need sm_90 (Hopper)\"") != std::string::npos);
    CHECK(source.find("mapa.shared::cluster.u32") != std::string::npos);
    CHECK(source.find("ld.shared::cluster.f32") != std::string::npos);
    CHECK(source.find("#define CLUSTER 8") != std::string::npos);
    // The input is read in one pass (head, float4s, tail), staged as it is read; later passes read the tile.
    const auto inputReads = [](const std::string &text) {
        std::size_t count = 0;
        for (const std::string read : {"= x[g];", "reinterpret_cast<const float4 *>(x + g0)"})
            for (auto at = text.find(read); at != std::string::npos; at = text.find(read, at + 1))
                ++count;
        return count;
    };
    CHECK(inputReads(source) == 3);
    CHECK(source.find("*reinterpret_cast<float4 *>(tile + (g0 - base)) = quad;") != std::string::npos);
    CHECK(source.find("const float d = v - mean; deviations += d * d;") != std::string::npos);
    CHECK(source.find("weight[c] + bias[c]") != std::string::npos);
    CHECK(source.find("make_float4(results[0], results[1], results[2], results[3])") != std::string::npos);

    const std::string scalar =
        kTemplate.generate(layer, recipeFor(layer), {{"cluster", 8}, {"block", 256}, {"vec", 1}}).source;
    CHECK(inputReads(scalar) == 1);
    CHECK(scalar.find("float4 quad") == std::string::npos);

    const Op instance = instanceNorm();
    const std::string alone =
        kTemplate.generate(instance, recipeFor(instance), kTemplate.defaults(instance, recipeFor(instance))).source;
    CHECK(alone.find("results[j] = (v - mean) * scale;") != std::string::npos);
    CHECK(alone.find("weight") == std::string::npos);

    const Op rms = rmsNorm();
    const std::string rmsSource =
        kTemplate.generate(rms, recipeFor(rms), kTemplate.defaults(rms, recipeFor(rms))).source;
    CHECK(rmsSource.find("squares += v * v;") != std::string::npos);
    CHECK(rmsSource.find("v * scale * w[c]") != std::string::npos);
    CHECK(rmsSource.find("const float mean ") == std::string::npos); // RMSNorm exchanges one sum
    CHECK(rmsSource.find("deviations") == std::string::npos);

    const Op group = groupNorm();
    const std::string groupSource =
        kTemplate.generate(group, recipeFor(group), kTemplate.defaults(group, recipeFor(group))).source;
    CHECK(groupSource.find("weight[firstChannel + (unsigned)c / channelSize32]") != std::string::npos);
    CHECK(groupSource.find("(v - mean) * scale * channelWeight + channelBias") != std::string::npos);
}

TEST_CASE("the defaults and sampled variants compile for sm_90 and sm_90a and resolve" * needsNvrtc())
{
    int compiled = 0;
    unsigned seed = 11;
    for (const Op &op : clusterOps()) {
        auto samples = sampleValid(kTemplate, op, seed++, 3);
        samples.push_back(kTemplate.defaults(op, recipeFor(op)));
        for (const auto &params : samples) {
            const std::string problem = verifyCandidate(kTemplate, op, params, compiled % 2 ? "sm_90a" : "sm_90");
            CHECK_MESSAGE(problem.empty(), problem);
            ++compiled;
        }
    }
    CHECK(compiled == 4 * 4);
}

TEST_CASE("refuses to compile for a GPU without clusters" * needsNvrtc())
{
    const Op layer = layerNorm();
    const std::string problem = verifyCandidate(kTemplate, layer, kTemplate.defaults(layer, recipeFor(layer)), "sm_80");
    CHECK_MESSAGE(problem.find("thread-block clusters need sm_90 (Hopper)") != std::string::npos, problem);
}
