// The strided reduce template (a reduction over a middle dimension of [rows, cols, inner]) and the reduce template
// beside it (the last dimension): which recipes each supports, defaults, parameter checks, the plans with and
// without the split across blocks, the PyTorch rules in the generated code, and real NVRTC compiles with plan
// resolution for sampled parameters of every reduction.
#include "core/codegen/stridedreducetemplate.h"

#include "templatetestsupport.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

using namespace kx;
using namespace kx::test;

namespace {

const char *const kReductions[] = {"sum", "mean", "max", "min", "prod", "argmax", "argmin"};

// KernelBench's reductions over dimension 1 of [batch_size, dim1, dim2] (dim2 odd), at a smaller batch, and the
// same with a second shape set whose inner size takes float4 loads.
Op middleOp(const std::string &reduction, bool vectorizable = false)
{
    const bool indexed = reduction.starts_with("arg");
    Op op;
    op.name = reduction + "_dim1";
    op.inputs = {tensor("x", {"batch_size", "dim1", "dim2"})};
    op.outputs = {tensor("out", {"batch_size", "dim2"}, indexed ? "int64" : "float32")};
    op.shapeSets = {{{"batch_size", 16}, {"dim1", 4096}, {"dim2", vectorizable ? 4096 : 4095}},
                    {{"batch_size", 3}, {"dim1", 77}, {"dim2", vectorizable ? 260 : 1001}}};
    op.recipe = R"j({"family": "reduce", "reduction": ")j" + reduction
                + R"j(", "rows": "batch_size", "cols": "dim1", "inner": "dim2"})j";
    return op;
}

// Few outputs and a long reduced dimension: [2, 65536, 32], which needs the split across blocks to fill a GPU.
Op fewColumnsOp(const std::string &reduction)
{
    Op op = middleOp(reduction, true);
    op.shapeSets = {{{"batch_size", 2}, {"dim1", 65536}, {"dim2", 32}},
                    {{"batch_size", 1}, {"dim1", 1001}, {"dim2", 8}}};
    return op;
}

const StridedReduceTemplate kTemplate;

} // namespace

TEST_CASE("the middle dimension is reduce-strided's, the last dimension the reduce template's")
{
    const Op middle = middleOp("sum");
    CHECK(kTemplate.supports(middle, recipeFor(middle)));
    CHECK_FALSE(findKernelTemplate("reduce")->supports(middle, recipeFor(middle)));
    REQUIRE(findKernelTemplate("reduce-strided"));

    Op last = middle;
    last.recipe = R"j({"family": "reduce", "reduction": "sum", "rows": "batch_size", "cols": "dim1"})j";
    CHECK_FALSE(kTemplate.supports(last, recipeFor(last)));
    CHECK(findKernelTemplate("reduce")->supports(last, recipeFor(last)));
}

TEST_CASE("defaults: the widest vector the inner sizes allow, the split only where few outputs leave the GPU idle")
{
    // [16, 4096, 4095]: 65520 outputs x 4 slices are a quarter of the threads a large GPU wants; 8 chunks of the
    // reduced dimension make up for it.
    const Op kernelBench = middleOp("argmax");
    CHECK(kTemplate.defaults(kernelBench, recipeFor(kernelBench))
          == Params{{"tile", 64}, {"slices", 4}, {"vec", 1}, {"unroll", 4}, {"split", 8}});
    // Full size, [128, 4096, 4095]: half a million outputs fill the GPU without a split.
    Op full = kernelBench;
    full.shapeSets[0]["batch_size"] = 128;
    CHECK(kTemplate.defaults(full, recipeFor(full)).at("split") == 1);

    const Op vectorizable = middleOp("sum", true);
    CHECK(kTemplate.defaults(vectorizable, recipeFor(vectorizable)).at("vec") == 4);

    // 2 x 32 outputs: the reduced dimension is cut until every thread keeps at least 16 steps of it (64 chunks
    // at most).
    const Op few = fewColumnsOp("min");
    const auto params = kTemplate.defaults(few, recipeFor(few));
    CHECK(params.at("split") == 64);
    CHECK(kTemplate.check(few, recipeFor(few), params).empty());
}

TEST_CASE("check() names what does not fit")
{
    const Op op = middleOp("argmin");
    const auto recipe = recipeFor(op);
    const Params good{{"tile", 64}, {"slices", 4}, {"vec", 1}, {"unroll", 4}, {"split", 1}};
    CHECK(kTemplate.check(op, recipe, good).empty());
    CHECK(kTemplate.check(op, recipe, with(good, {{"tile", 256}, {"slices", 8}})).find("exceed 1024")
          != std::string::npos);
    CHECK(kTemplate.check(op, recipe, with(good, {{"vec", 2}})).find("multiple") != std::string::npos);
    CHECK(kTemplate.check(op, recipe, with(good, {{"split", 3}}))
          == "blocks along the reduced dimension (over 1: a "
             "second kernel) 3 is not one of the allowed values");
    CHECK(kTemplate.check(op, recipe, with(good, {{"block", 256}})) == "unknown parameter block");
    // The largest block with the widest vector: its slices' values and indices still fit static shared memory.
    const Op wide = middleOp("argmin", true);
    CHECK(kTemplate.check(wide, recipeFor(wide), with(good, {{"tile", 64}, {"vec", 4}, {"slices", 16}})).empty());

    Op wrongType = op;
    wrongType.outputs.front().dtype = "float32";
    CHECK(kTemplate.check(wrongType, recipe, good) == "argmin writes int64");
    Op unknown = op;
    unknown.recipe = R"j({"family": "reduce", "reduction": "median", "rows": "batch_size", "cols": "dim1",
                          "inner": "dim2"})j";
    CHECK(kTemplate.check(unknown, recipeFor(unknown), good) == "unknown reduction 'median'");
}

TEST_CASE("the plan: one kernel, or two through a scratch buffer of partials when the reduced dimension is split")
{
    const Op op = middleOp("argmax");
    const Params params{{"tile", 128}, {"slices", 2}, {"vec", 1}, {"unroll", 2}, {"split", 1}};
    const auto one = kTemplate.generate(op, recipeFor(op), params);
    const auto plan = nlohmann::json::parse(one.launchPlan);
    REQUIRE(plan["steps"].size() == 1);
    CHECK(plan["steps"][0]["grid"] == nlohmann::json{"ceil_div(batch_size * (dim2 / 1), 128)", "1"});
    CHECK(plan["steps"][0]["block"] == nlohmann::json{"128", "2"});
    CHECK_FALSE(plan.contains("scratch"));
    CHECK(one.source.find("long long *__restrict__ out") != std::string::npos);
    const std::string unstated = unstatedParameters(kTemplate, op, params, one.source);
    CHECK_MESSAGE(unstated.empty(), unstated);

    const auto two = kTemplate.generate(op, recipeFor(op), with(params, {{"split", 8}}));
    const auto split = nlohmann::json::parse(two.launchPlan);
    REQUIRE(split["steps"].size() == 2);
    CHECK(split["steps"][0]["grid"][1] == "8");
    CHECK(split["steps"][1]["kernel"] == "strided_reduce_finish_kernel");
    CHECK(split["steps"][1]["grid"][0] == "ceil_div(batch_size * dim2, 256)");
    // A value and an index a partial: 12 bytes, 8 chunks of every output.
    CHECK(split["scratch"][0]["bytes"] == "96 * batch_size * dim2");
    const Op mean = middleOp("mean");
    const auto means = kTemplate.generate(mean, recipeFor(mean), with(params, {{"split", 4}}));
    CHECK(nlohmann::json::parse(means.launchPlan)["scratch"][0]["bytes"] == "16 * batch_size * dim2");
    CHECK(means.source.find("out[t] = acc / (float)cols;") != std::string::npos);

    const auto rejected = kTemplate.generate(op, recipeFor(op), with(params, {{"vec", 4}}));
    CHECK(rejected.launchPlan.empty());
}

TEST_CASE("generated code keeps PyTorch's rules: NaN wins for max and min, ties go to the first index")
{
    const Op max = middleOp("max");
    const auto maxSource = kTemplate.generate(max, recipeFor(max), kTemplate.defaults(max, recipeFor(max))).source;
    CHECK(maxSource.find("return (v > acc || v != v) ? v : acc;") != std::string::npos);
    CHECK(maxSource.find("fmaxf") == std::string::npos);
    const Op argmin = middleOp("argmin");
    const auto argminSource =
        kTemplate.generate(argmin, recipeFor(argmin), kTemplate.defaults(argmin, recipeFor(argmin))).source;
    CHECK(argminSource.find("const bool wins = nan ? (!bestNan || index < bestIndex)") != std::string::npos);
    CHECK(argminSource.find("(!bestNan && (v < best || (v == best && index < bestIndex)))") != std::string::npos);
    CHECK(argminSource.find("return __int_as_float(0x7f800000);") != std::string::npos); // +inf starts a min
}

TEST_CASE("sampled parameters of every reduction compile and resolve" * needsNvrtc())
{
    std::vector<Op> ops;
    for (const char *reduction : kReductions)
        for (const Op &op : {middleOp(reduction), middleOp(reduction, true), fewColumnsOp(reduction)})
            ops.push_back(op);
    CHECK(checkSampledVariantsCompile(kTemplate, ops, 1, 3) == 7 * 3 * 4);
}

TEST_CASE("the reduce template takes min, prod and argmin over the last dimension too" * needsNvrtc())
{
    const KernelTemplate &rows = *findKernelTemplate("reduce");
    int compiled = 0;
    for (const char *reduction : kReductions) {
        Op op = middleOp(reduction);
        op.recipe = R"j({"family": "reduce", "reduction": ")j" + std::string(reduction)
                    + R"j(", "rows": "batch_size", "cols": "dim1"})j";
        op.shapeSets = {{{"batch_size", 64}, {"dim1", 4096}, {"dim2", 1}},
                        {{"batch_size", 3}, {"dim1", 1000}, {"dim2", 1}}};
        auto samples = sampleValid(rows, op, 7, 3);
        samples.push_back(rows.defaults(op, recipeFor(op)));
        for (const auto &params : samples) {
            const std::string problem = verifyCandidate(rows, op, params, "sm_90");
            CHECK_MESSAGE(problem.empty(), problem);
            ++compiled;
        }
    }
    CHECK(compiled == 7 * 4);
}
