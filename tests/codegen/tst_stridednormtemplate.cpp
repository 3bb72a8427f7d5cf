// The strided norm template (RMSNorm over a middle dimension of [outer, cols, inner]): which recipes it
// supports, parameter checks, the plan, and real NVRTC compiles with plan resolution over its whole space.
#include "core/codegen/stridednormtemplate.h"

#include "templatetestsupport.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

using namespace kx;
using namespace kx::test;

namespace {

// KernelBench's 36_RMSNorm_ (no weight, features in the middle) and a weighted one with an odd inner size.
std::vector<Op> stridedOps()
{
    Op plain;
    plain.name = "rms_norm_features";
    plain.inputs = {tensor("x", {"batch_size", "features", "dim1", "dim2"})};
    plain.outputs = {tensor("out", {"batch_size", "features", "dim1", "dim2"})};
    plain.shapeSets = {{{"batch_size", 16}, {"features", 64}, {"dim1", 256}, {"dim2", 256}, {"I", 65536}},
                       {{"batch_size", 3}, {"features", 5}, {"dim1", 6}, {"dim2", 2}, {"I", 12}}};
    plain.recipe =
        R"j({"family": "norm", "reduction": "rmsnorm", "rows": "batch_size", "cols": "features", "inner": "I"})j";

    Op weighted;
    weighted.name = "rms_norm_weighted";
    weighted.inputs = {tensor("x", {"O", "C", "I"}), tensor("w", {"C"})};
    weighted.outputs = {tensor("y", {"O", "C", "I"})};
    weighted.shapeSets = {{{"O", 7}, {"C", 33}, {"I", 1001}}};
    weighted.recipe =
        R"j({"family": "norm", "reduction": "rmsnorm", "rows": "O", "cols": "C", "inner": "I", "eps": 1e-6})j";
    return {plain, weighted};
}

const StridedNormTemplate kTemplate;

} // namespace

TEST_CASE("supports rmsnorm over a middle dimension only; the row templates leave it alone")
{
    const Op op = stridedOps().front();
    CHECK(kTemplate.supports(op, recipeFor(op)));
    CHECK_FALSE(findKernelTemplate("norm")->supports(op, recipeFor(op)));
    CHECK_FALSE(findKernelTemplate("norm-split")->supports(op, recipeFor(op)));
    Op lastDimension = op;
    lastDimension.recipe = R"j({"family": "norm", "reduction": "rmsnorm", "rows": "batch_size", "cols": "features"})j";
    CHECK_FALSE(kTemplate.supports(lastDimension, recipeFor(lastDimension)));
}

TEST_CASE("defaults hold the column in registers where it fits, with the widest vector the sizes allow")
{
    const auto ops = stridedOps();
    // 64 channels x 2 lanes fill the 128 registers a cached column may take; 4 lanes would not fit.
    CHECK(kTemplate.defaults(ops[0], recipeFor(ops[0]))
          == (Params{{"block", 256}, {"vec", 2}, {"unroll", 1}, {"cache", 1}}));
    CHECK(kTemplate.defaults(ops[1], recipeFor(ops[1])).at("vec") == 1); // 1001 is odd
    CHECK(kTemplate.check(ops[1], recipeFor(ops[1]), {{"block", 256}, {"vec", 2}, {"unroll", 4}, {"cache", 0}})
              .find("multiple")
          != std::string::npos);
    CHECK(kTemplate.check(ops[0], recipeFor(ops[0]), {{"block", 256}, {"vec", 4}, {"unroll", 1}, {"cache", 1}})
              .find("registers")
          != std::string::npos);
    Op wide = ops[0];
    wide.shapeSets[0]["features"] = 200;
    CHECK(kTemplate.defaults(wide, recipeFor(wide)).at("cache") == 0);
}

TEST_CASE("the plan: one thread per VEC inner positions of each outer index")
{
    const Op op = stridedOps()[1];
    const Params params{{"block", 128}, {"vec", 1}, {"unroll", 8}, {"cache", 0}};
    const auto kernel = kTemplate.generate(op, recipeFor(op), params);
    const auto plan = nlohmann::json::parse(kernel.launchPlan);
    REQUIRE(plan["steps"].size() == 1);
    CHECK(plan["steps"][0]["grid"][0] == "ceil_div(O * (I / 1), 128)");
    CHECK(kernel.source.find("v = v * scale * w[c];") != std::string::npos);
    const std::string unstated = unstatedParameters(kTemplate, op, params, kernel.source);
    CHECK_MESSAGE(unstated.empty(), unstated);
    // The cached column is as long as the longest channel count, rounded up to 4.
    const auto cached =
        kTemplate.generate(op, recipeFor(op), {{"block", 128}, {"vec", 1}, {"unroll", 1}, {"cache", 1}});
    CHECK(cached.source.find("#define MAXC 36") != std::string::npos);
    CHECK(cached.source.find("values[c] = v;") != std::string::npos);
}

TEST_CASE("every valid combination compiles and resolves" * needsNvrtc())
{
    const SpaceVerification space = verifyWholeSpace(kTemplate, stridedOps(), 3);
    CHECK_MESSAGE(space.problem.empty(), space.problem);
    // 4 blocks x 3 widths x 3 unrolls x cached or not per op. Cached columns take unroll 1 and at most 128 floats
    // (64 channels: widths 1 and 2; 33: width 1, as inner 1001 allows only width 1 anyway).
    CHECK(space.compiled == (36 + 8) + (12 + 4));
    CHECK(space.rejected == (24 + 4) + (24 + 24 + 8));
}
