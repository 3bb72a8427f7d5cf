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
    weighted.recipe = R"j({"family": "norm", "reduction": "rmsnorm", "rows": "O", "cols": "C", "inner": "I", "eps": 1e-6})j";
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

TEST_CASE("defaults take the widest vector every inner size allows")
{
    const auto ops = stridedOps();
    CHECK(kTemplate.defaults(ops[0], recipeFor(ops[0])).at("vec") == 4); // inner 65536 and 12
    CHECK(kTemplate.defaults(ops[1], recipeFor(ops[1])).at("vec") == 1); // 1001 is odd
    CHECK(kTemplate.check(ops[1], recipeFor(ops[1]), {{"block", 256}, {"vec", 2}, {"unroll", 4}}).find("multiple")
          != std::string::npos);
}

TEST_CASE("the plan: one thread per VEC inner positions of each outer index")
{
    const Op op = stridedOps()[1];
    const auto kernel = kTemplate.generate(op, recipeFor(op), {{"block", 128}, {"vec", 1}, {"unroll", 8}});
    const auto plan = nlohmann::json::parse(kernel.launchPlan);
    REQUIRE(plan["steps"].size() == 1);
    CHECK(plan["steps"][0]["grid"][0] == "ceil_div(O * (I / 1), 128)");
    CHECK(kernel.source.find("v = v * scale * w[c];") != std::string::npos);
    const std::string unstated = unstatedParameters(kTemplate, op, {{"block", 128}, {"vec", 1}, {"unroll", 8}}, kernel.source);
    CHECK_MESSAGE(unstated.empty(), unstated);
}

TEST_CASE("every valid combination compiles and resolves" * needsNvrtc())
{
    const SpaceVerification space = verifyWholeSpace(kTemplate, stridedOps(), 3);
    CHECK_MESSAGE(space.problem.empty(), space.problem);
    // 4 blocks x 3 unrolls x 3 widths per op; inner 12 refuses none, inner 1001 refuses widths 2 and 4.
    CHECK(space.compiled == 36 + 12);
    CHECK(space.rejected == 24);
}
