// The scan template (cumulative sums and products along a dimension): defaults, parameter checks, the plans of the
// three mappings (a block a row, look-back tiles with their status buffer, a thread a middle-dimension line), what
// the generated code computes, and real NVRTC compiles with plan resolution of sampled variants.
#include "core/codegen/scantemplate.h"
#include "core/plan/launchplan.h"

#include "templatetestsupport.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

using namespace kx;
using namespace kx::test;

namespace {

const ScanTemplate kTemplate;

Op scanOp(const std::string &name, const std::string &recipe, std::vector<ShapeSet> shapeSets)
{
    Op op;
    op.name = name;
    op.inputs = {tensor("x", {"N", "D"})};
    op.outputs = {tensor("out", {"N", "D"})};
    op.shapeSets = std::move(shapeSets);
    op.recipe = recipe;
    return op;
}

// Rows of the KernelBench problems' kind (many, long), few rows of millions, and odd sizes in each second set.
std::vector<Op> scanOps()
{
    std::vector<Op> ops;
    ops.push_back(scanOp("cumsum", R"j({"family": "scan", "reduction": "sum", "rows": "N", "cols": "D"})j",
                         {{{"N", 32768}, {"D", 32768}}, {{"N", 333}, {"D", 1029}}}));
    ops.push_back(scanOp("cumsum_long_rows", R"j({"family": "scan", "reduction": "sum", "rows": "N", "cols": "D"})j",
                         {{{"N", 8}, {"D", 4194304}}, {{"N", 3}, {"D", 1000003}}}));
    ops.push_back(scanOp("cumsum_reverse_exclusive",
                         R"j({"family": "scan", "reduction": "sum", "rows": "N", "cols": "D", "exclusive": true,
                              "reverse": true})j",
                         {{{"N", 16}, {"D", 65536}}, {{"N", 5}, {"D", 4097}}}));
    ops.push_back(scanOp("cumprod", R"j({"family": "scan", "reduction": "prod", "rows": "N", "cols": "D"})j",
                         {{{"N", 4096}, {"D", 4096}}, {{"N", 7}, {"D", 3001}}}));
    ops.push_back(scanOp("cumprod_reverse_exclusive",
                         R"j({"family": "scan", "reduction": "prod", "rows": "N", "cols": "D", "exclusive": true,
                              "reverse": true})j",
                         {{{"N", 64}, {"D", 4000}}, {{"N", 3}, {"D", 77}}}));
    Op masked = scanOp("masked_cumsum_scaled",
                       R"j({"family": "scan", "reduction": "sum", "rows": "N", "cols": "D", "prologue": "(x * mask)",
                            "expression": "(acc * 0.5f + x)"})j",
                       {{{"N", 2048}, {"D", 2048}}, {{"N", 9}, {"D", 1000}}});
    masked.inputs.push_back(tensor("mask", {"N", "D"}, "bool"));
    ops.push_back(masked);
    Op channels = scanOp("cumsum_channels",
                         R"j({"family": "scan", "reduction": "sum", "rows": "N", "cols": "C", "inner": "S"})j",
                         {{{"N", 16}, {"C", 64}, {"S", 16384}}, {{"N", 3}, {"C", 7}, {"S", 1001}}});
    channels.inputs = {tensor("x", {"N", "C", "S"})};
    channels.outputs = {tensor("out", {"N", "C", "S"})};
    ops.push_back(channels);
    Op channelProducts = channels;
    channelProducts.name = "cumprod_channels_reverse_exclusive";
    channelProducts.recipe = R"j({"family": "scan", "reduction": "prod", "rows": "N", "cols": "C", "inner": "S",
                                   "exclusive": true, "reverse": true})j";
    ops.push_back(channelProducts);
    return ops;
}

const Op &scanTestOp(const std::string &name)
{
    static const std::vector<Op> ops = scanOps();
    for (const auto &op : ops)
        if (op.name == name)
            return op;
    throw std::logic_error("no test op " + name);
}

nlohmann::json planOf(const Op &op, const Params &params)
{
    return nlohmann::json::parse(kTemplate.generate(op, recipeFor(op), params).launchPlan);
}

} // namespace

TEST_CASE("is registered and supports scan recipes only")
{
    REQUIRE(findKernelTemplate("scan") != nullptr);
    for (const Op &op : scanOps())
        CHECK(kTemplate.supports(op, recipeFor(op)));
    Op reduce = scanTestOp("cumsum");
    reduce.recipe = R"j({"family": "reduce", "reduction": "sum", "rows": "N", "cols": "D"})j";
    CHECK_FALSE(kTemplate.supports(reduce, recipeFor(reduce)));
}

TEST_CASE("defaults: look-back for few long rows of sums, a block a row otherwise, and every parameter stated")
{
    for (const Op &op : scanOps()) {
        CAPTURE(op.name);
        const OpRecipe recipe = recipeFor(op);
        const Params params = kTemplate.defaults(op, recipe);
        CHECK(kTemplate.check(op, recipe, params) == std::string());
        const std::string unstated =
            unstatedParameters(kTemplate, op, params, kTemplate.generate(op, recipe, params).source);
        CHECK_MESSAGE(unstated.empty(), unstated);
    }
    const auto mapping = [](const std::string &name) {
        const Op &op = scanTestOp(name);
        return kTemplate.defaults(op, recipeFor(op)).at("mapping");
    };
    CHECK(mapping("cumsum") == 0);
    CHECK(mapping("cumsum_long_rows") == 1);
    CHECK(mapping("cumsum_reverse_exclusive") == 1);
    CHECK(mapping("cumprod_reverse_exclusive") == 0); // few rows, but products never chain by look-back
    const Op &channels = scanTestOp("cumsum_channels");
    CHECK(kTemplate.defaults(channels, recipeFor(channels)) == Params{{"block", 256}, {"unroll", 4}});
}

TEST_CASE("check names what is wrong")
{
    const Op &products = scanTestOp("cumprod");
    const Params lookBack{{"mapping", 1}, {"block", 256}, {"items", 8}};
    CHECK(kTemplate.check(products, recipeFor(products), lookBack).find("look-back chains fp32 sums only")
          != std::string::npos);
    const Op &sums = scanTestOp("cumsum");
    CHECK(kTemplate.check(sums, recipeFor(sums), lookBack) == std::string());
    CHECK_FALSE(kTemplate.check(sums, recipeFor(sums), {{"mapping", 0}, {"block", 100}, {"items", 8}}).empty());
    CHECK_FALSE(kTemplate.check(sums, recipeFor(sums), {{"mapping", 0}, {"block", 256}}).empty());

    Op integers = sums;
    integers.inputs.front().dtype = "int64";
    CHECK(kTemplate.check(integers, recipeFor(integers), lookBack).find("reads float32 and bool") != std::string::npos);
    Op broadcast = scanTestOp("masked_cumsum_scaled");
    broadcast.inputs.back().shape = {"D"};
    CHECK(kTemplate.check(broadcast, recipeFor(broadcast), lookBack).find("another shape") != std::string::npos);
    Op maximum = sums;
    maximum.recipe = R"j({"family": "scan", "reduction": "max", "rows": "N", "cols": "D"})j";
    CHECK(kTemplate.check(maximum, recipeFor(maximum), lookBack).find("unknown scan 'max'") != std::string::npos);
    Op unbound = sums;
    unbound.shapeSets.push_back({{"N", 4}});
    CHECK(kTemplate.check(unbound, recipeFor(unbound), lookBack).find("do not bind") != std::string::npos);
    const Op &channels = scanTestOp("cumsum_channels");
    CHECK(kTemplate.check(channels, recipeFor(channels), lookBack).find("missing parameter unroll") != std::string::npos);
    CHECK(kTemplate.check(channels, recipeFor(channels), {{"block", 64}, {"unroll", 2}, {"items", 4}}).find("unknown parameter items")
          != std::string::npos);
}

TEST_CASE("a block a row: one kernel over the rows, the padded tile in dynamic shared memory")
{
    const Op &op = scanTestOp("cumsum");
    const auto plan = planOf(op, {{"mapping", 0}, {"block", 512}, {"items", 4}});
    REQUIRE(plan["steps"].size() == 1);
    CHECK(plan["steps"][0]["kernel"] == "scan_rows_kernel");
    CHECK(plan["steps"][0]["grid"] == nlohmann::json::array({"N"}));
    CHECK(plan["steps"][0]["shared"] == std::to_string(4 * (2048 + 64)));
    CHECK_FALSE(plan.contains("scratch"));
}

TEST_CASE("look-back: the statuses are cleared by a first kernel, then a block a tile claims tiles in order")
{
    const Op &op = scanTestOp("cumsum_long_rows");
    const Params params{{"mapping", 1}, {"block", 256}, {"items", 8}};
    const auto plan = planOf(op, params);
    REQUIRE(plan["steps"].size() == 2);
    CHECK(plan["steps"][0]["kernel"] == "scan_init_kernel");
    CHECK(plan["steps"][1]["kernel"] == "scan_tiles_kernel");
    CHECK(plan["scratch"][0]["name"] == "status");
    // Resolved at N = 3, D = 1000003: 489 tiles of 2048 a row, a status word each and the counter.
    const auto parsed = parseLaunchPlan(plan.dump());
    REQUIRE(parsed);
    const auto source = kTemplate.generate(op, recipeFor(op), params).source;
    const auto resolved = resolveLaunchPlan(*parsed, op, op.shapeSets[1], parseKernelSignatures(source));
    REQUIRE_MESSAGE(resolved, (resolved ? "" : resolved.error().message));
    CHECK(resolved->scratchBytes.at(0).second == 8 * (3 * 489 + 1));
    const auto &init = std::get<ResolvedKernelStep>(resolved->steps.at(0));
    const auto &tiles = std::get<ResolvedKernelStep>(resolved->steps.at(1));
    CHECK(init.grid[0] == 6);
    CHECK(init.args.at(1).intValue == 3 * 489 + 1);
    CHECK(tiles.grid[0] == 3 * 489);
    CHECK(tiles.sharedBytes == 4 * (2048 + 64));
    CHECK(tiles.args.back().intValue == 489);
    // The counter sits behind the statuses: the kernel claims its tile from status[gridDim.x].
    CHECK(source.find("atomicAdd(status + gridDim.x, 1ull)") != std::string::npos);
}

TEST_CASE("the generated code follows the recipe: direction, exclusion, prologue, epilogue and bool inputs")
{
    const auto sourceOf = [](const std::string &name, const Params &changes = {}) {
        const Op &op = scanTestOp(name);
        return kTemplate.generate(op, recipeFor(op), with(kTemplate.defaults(op, recipeFor(op)), changes)).source;
    };
    const std::string forward = sourceOf("cumsum");
    CHECK(forward.find("return p;") != std::string::npos);
    CHECK(forward.find("= ScanOp::combine(before, local[k]);") != std::string::npos);
    CHECK(forward.find("struct Wide") == std::string::npos);
    const std::string backward = sourceOf("cumsum_reverse_exclusive");
    CHECK(backward.find("return cols - 1 - p;") != std::string::npos);
    CHECK(backward.find("k == 0 ? before : ScanOp::combine(before, local[k - 1])") != std::string::npos);
    CHECK(backward.find("lookBack(status, index, t)") != std::string::npos);
    // Products: a wide exponent and where fp32 gets stuck; an exclusive product starts at one.
    const std::string products = sourceOf("cumprod_reverse_exclusive");
    CHECK(products.find("struct Wide") != std::string::npos);
    CHECK(products.find("finish(before, threadStuck)") != std::string::npos);
    CHECK(products.find("float v = 1.0f;") != std::string::npos);
    const std::string masked = sourceOf("masked_cumsum_scaled");
    CHECK(masked.find("const bool *__restrict__ mask") != std::string::npos);
    CHECK(masked.find("return (x * mask);") != std::string::npos);
    CHECK(masked.find("out[at] = epilogue(tile[PADDED(i)], x[at], mask[at]);") != std::string::npos);
    CHECK(forward.find("epilogue(") == std::string::npos);
    const std::string columns = sourceOf("cumprod_channels_reverse_exclusive");
    CHECK(columns.find("scan_columns_kernel") != std::string::npos);
    CHECK(columns.find("out[at] = acc;\n        acc = acc * v;") != std::string::npos);
}

TEST_CASE("the middle dimension: a thread a line, lines of rows x inner")
{
    const Op &op = scanTestOp("cumsum_channels");
    const auto plan = planOf(op, {{"block", 128}, {"unroll", 2}});
    REQUIRE(plan["steps"].size() == 1);
    CHECK(plan["steps"][0]["kernel"] == "scan_columns_kernel");
    CHECK(plan["steps"][0]["grid"] == nlohmann::json::array({"ceil_div(N * S, 128)"}));
}

TEST_CASE("rejected parameters generate code that says why")
{
    const Op &op = scanTestOp("cumprod");
    const auto kernel = kTemplate.generate(op, recipeFor(op), {{"mapping", 1}, {"block", 256}, {"items", 8}});
    CHECK(kernel.source.find("#error") == 0);
    CHECK(kernel.launchPlan.empty());
}

TEST_CASE("defaults and sampled variants compile and resolve" * needsNvrtc())
{
    int compiled = 0;
    for (const Op &op : scanOps()) {
        const OpRecipe recipe = recipeFor(op);
        auto variants = sampleValid(kTemplate, op, 17, 5);
        variants.insert(variants.begin(), kTemplate.defaults(op, recipe));
        for (const auto &params : variants) {
            const std::string problem = verifyCandidate(kTemplate, op, params, compiled % 2 ? "sm_90" : "sm_80");
            CHECK_MESSAGE(problem.empty(), problem);
            ++compiled;
        }
    }
    CHECK(compiled == 8 * 6);
}
