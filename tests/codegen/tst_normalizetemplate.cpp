// The normalize template (each row divided by a statistic of it: L1 and L2 normalisation): which recipes it
// supports, defaults, parameter checks, the generated statistic, and real NVRTC compiles with plan resolution for
// sampled parameters.
#include "core/codegen/normalizetemplate.h"

#include "templatetestsupport.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

using namespace kx;
using namespace kx::test;

namespace {

// KernelBench's L1 (x / mean(|x|)) and L2 (x / ||x||) normalisations of [batch_size, dim], dim odd, and a max
// normalisation whose rows take float4 loads.
std::vector<Op> normalizeOps()
{
    const auto make = [](const std::string &name, const std::string &recipeFields, long long dim, long long oddDim) {
        Op op;
        op.name = name;
        op.inputs = {tensor("x", {"batch_size", "dim"})};
        op.outputs = {tensor("out", {"batch_size", "dim"})};
        op.shapeSets = {{{"batch_size", 4096}, {"dim", dim}}, {{"batch_size", 3}, {"dim", oddDim}}};
        op.recipe = R"j({"family": "normalize", "rows": "batch_size", "cols": "dim", )j" + recipeFields + "}";
        return op;
    };
    return {
        make("l1_normalize", R"j("reduction": "mean", "prologue": "fabsf(v)")j", 65535, 1001),
        make("l2_normalize", R"j("reduction": "sum", "prologue": "(v * v)", "expression": "sqrtf(acc)")j", 65535, 333),
        make("max_normalize", R"j("reduction": "max", "prologue": "fabsf(v)")j", 4096, 516)};
}

const NormalizeTemplate kTemplate;

} // namespace

TEST_CASE("supports normalize recipes over the last dimension only, and is registered")
{
    const Op op = normalizeOps().front();
    CHECK(kTemplate.supports(op, recipeFor(op)));
    CHECK(findKernelTemplate("normalize") != nullptr);
    Op middle = op;
    middle.recipe =
        R"j({"family": "normalize", "reduction": "sum", "rows": "batch_size", "cols": "dim", "inner": "I"})j";
    CHECK_FALSE(kTemplate.supports(middle, recipeFor(middle)));
    Op reduce = op;
    reduce.recipe = R"j({"family": "reduce", "reduction": "sum", "rows": "batch_size", "cols": "dim"})j";
    CHECK_FALSE(kTemplate.supports(reduce, recipeFor(reduce)));
}

TEST_CASE("defaults: a block a row with loads in flight, float4 loads where every row length allows them")
{
    const auto ops = normalizeOps();
    CHECK(kTemplate.defaults(ops[0], recipeFor(ops[0]))
          == Params{{"mapping", 1}, {"block", 256}, {"vec", 1}, {"unroll", 4}, {"reduction", 0}});
    CHECK(kTemplate.defaults(ops[2], recipeFor(ops[2])).at("vec") == 4);
}

TEST_CASE("check() names what does not fit")
{
    const Op op = normalizeOps().front();
    const Params good = kTemplate.defaults(op, recipeFor(op));
    CHECK(kTemplate.check(op, recipeFor(op), good).empty());
    CHECK(kTemplate.check(op, recipeFor(op), with(good, {{"vec", 4}})).find("divisible") != std::string::npos);

    Op indexed = op;
    indexed.recipe = R"j({"family": "normalize", "reduction": "argmax", "rows": "batch_size", "cols": "dim"})j";
    CHECK(kTemplate.check(indexed, recipeFor(indexed), good) == "unknown statistic 'argmax'");
    Op statements = op;
    statements.recipe = R"j({"family": "normalize", "reduction": "sum", "rows": "batch_size", "cols": "dim",
                             "prologue": "v; } {"})j";
    CHECK(kTemplate.check(statements, recipeFor(statements), good)
          == "the prologue and the epilogue must be expressions");
    Op reduced = op;
    reduced.outputs = {tensor("out", {"batch_size"})};
    CHECK(kTemplate.check(reduced, recipeFor(reduced), good)
          == "normalize reads one input and writes one output of its shape");
}

TEST_CASE("the kernel reduces the prologue, finishes the statistic and divides every element by it")
{
    const auto ops = normalizeOps();
    const auto l1 = kTemplate.generate(ops[0], recipeFor(ops[0]), kTemplate.defaults(ops[0], recipeFor(ops[0])));
    CHECK(l1.source.find("acc = combine(acc, fabsf(v));") != std::string::npos);
    CHECK(l1.source.find("acc = acc / (float)cols;") != std::string::npos);
    CHECK(l1.source.find("result[c] = v / statistic;") != std::string::npos);
    const auto l2 = kTemplate.generate(ops[1], recipeFor(ops[1]), kTemplate.defaults(ops[1], recipeFor(ops[1])));
    CHECK(l2.source.find("const float statistic = sqrtf(acc);") != std::string::npos);
    CHECK(l2.source.find("acc / (float)cols") == std::string::npos); // a sum, not a mean
    const auto plan = nlohmann::json::parse(l2.launchPlan);
    CHECK(plan["steps"][0]["grid"][0] == "batch_size");
    CHECK(plan["steps"][0]["shared"] == "128");
    const std::string unstated =
        unstatedParameters(kTemplate, ops[1], kTemplate.defaults(ops[1], recipeFor(ops[1])), l2.source);
    CHECK_MESSAGE(unstated.empty(), unstated);
}

TEST_CASE("sampled parameters compile and resolve" * needsNvrtc())
{
    CHECK(checkSampledVariantsCompile(kTemplate, normalizeOps(), 3, 6) == 3 * 7);
}
