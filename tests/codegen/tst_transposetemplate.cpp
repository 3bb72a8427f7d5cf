// The transpose template: parameter checks, generated source and plan, real NVRTC compiles and plan resolution.
#include "core/codegen/transposetemplate.h"
#include "core/plan/launchplan.h"

#include "templatetestsupport.h"

#include <doctest/doctest.h>

using namespace kx;
using namespace kx::test;

namespace {

// The second shape set of each op has sizes that are not multiples of any tile.
std::vector<Op> transposeOps()
{
    Op square;
    square.name = "transpose_square";
    square.inputs = {tensor("x", {"R", "C"})};
    square.outputs = {tensor("out", {"C", "R"})};
    square.shapeSets = {{{"R", 4096}, {"C", 4096}}, {{"R", 1000}, {"C", 333}}};
    square.recipe = R"j({"family": "transpose"})j";

    Op wide;
    wide.name = "transpose_wide";
    wide.inputs = {tensor("in", {"ROWS", "COLS"})};
    wide.outputs = {tensor("y", {"COLS", "ROWS"})};
    wide.shapeSets = {{{"ROWS", 64}, {"COLS", 65536}}, {{"ROWS", 7}, {"COLS", 100003}}};
    wide.recipe = R"j({"family": "transpose", "rows": "ROWS", "cols": "COLS"})j";
    return {square, wide};
}

const TransposeTemplate kTemplate;

} // namespace

TEST_CASE("is registered")
{
    const Op op = transposeOps().front();
    const KernelTemplate *found = findKernelTemplate("transpose");
    REQUIRE(found);
    CHECK(found->supports(op, recipeFor(op)));
}

TEST_CASE("defaults")
{
    const Op op = transposeOps().front();
    const Params params = kTemplate.defaults(op, recipeFor(op));
    CHECK(params == (Params{{"tile", 32}, {"rows", 8}, {"pad", 1}, {"staging", 1}}));
    CHECK(kTemplate.check(op, recipeFor(op), params) == std::string());
    const GeneratedKernel kernel = kTemplate.generate(op, recipeFor(op), params);
    CHECK(kernel.source.find("__shared__ float tile[TILE][TILE + PAD];") != std::string::npos);
    CHECK(kernel.source.find("constexpr int PAD = 1;") != std::string::npos);
    const std::string unstated = unstatedParameters(kTemplate, op, params, kernel.source);
    CHECK_MESSAGE(unstated.empty(), unstated);
}

TEST_CASE("the defaults compile and resolve" * needsNvrtc())
{
    for (const auto &row : opAndArchRows(transposeOps())) {
        SUBCASE(row.name.c_str())
        {
            const Op transpose = transposeOps()[row.op];
            const std::string problem =
                verifyCandidate(kTemplate, transpose, kTemplate.defaults(transpose, recipeFor(transpose)), row.arch);
            CHECK_MESSAGE(problem.empty(), problem);
        }
    }
}

// The space is small: every valid combination of both ops (seeded order), 80 compiles in all.
TEST_CASE("every valid combination compiles and resolves" * needsNvrtc())
{
    const SpaceVerification space = verifyWholeSpace(kTemplate, transposeOps(), 99);
    CHECK_MESSAGE(space.problem.empty(), space.problem);
    // Per op: tile 16 takes 4, 8 or 16 rows, tile 32 any of the four, tile 64 up to 16 (1024 threads).
    CHECK(space.compiled == 2 * 10 * 2 * 2);
    CHECK(space.rejected == 2 * 2 * 2 * 2);
}

TEST_CASE("the plan covers the matrix")
{
    const Op op = transposeOps()[1];
    const Params params{{"tile", 64}, {"rows", 16}, {"pad", 0}, {"staging", 0}};
    const GeneratedKernel kernel = kTemplate.generate(op, recipeFor(op), params);
    const auto plan = parseLaunchPlan(kernel.launchPlan);
    REQUIRE(plan);
    const auto resolved = resolveLaunchPlan(*plan, op, op.shapeSets[1], parseKernelSignatures(kernel.source));
    REQUIRE_MESSAGE(resolved, (resolved ? "" : resolved.error().message));
    const auto &step = std::get<ResolvedKernelStep>(resolved->steps.front());
    CHECK(step.block[0] == std::int64_t(64));
    CHECK(step.block[1] == std::int64_t(16));
    CHECK(step.grid[0] == std::int64_t((100003 + 63) / 64)); // along COLS
    CHECK(step.grid[1] == std::int64_t(1));                  // 7 rows fit one tile
    CHECK(step.args[2].intValue == std::int64_t(7));
    CHECK(step.args[3].intValue == std::int64_t(100003));
    CHECK(kernel.source.find("__shared__") == std::string::npos);
}

TEST_CASE("rejects invalid combinations")
{
    const struct
    {
        const char *name;
        std::string changes;
        std::string reason;
    } rows[] = {
        {"too many threads", "tile=64,rows=32", "64 x 32 = 2048 threads per block exceed 1024"},
        {"rows beyond tile", "tile=16,rows=32", "32 rows per pass exceed the tile of 16"},
        {"value", "tile=48", "tile size 48 is not one of the allowed values"},
        {"missing", "-staging", "missing parameter staging"},
        {"unknown", "vec=4", "unknown parameter vec"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            const Op op = transposeOps().front();
            const Params params = withChanges(kTemplate.defaults(op, recipeFor(op)), row.changes);
            CHECK(kTemplate.check(op, recipeFor(op), params) == row.reason);
        }
    }
}

TEST_CASE("rejects ops it cannot handle")
{
    Op op = transposeOps().front();
    op.outputs.front().shape = {"R", "C"};
    CHECK(kTemplate.check(op, recipeFor(op), kTemplate.defaults(op, recipeFor(op)))
          == std::string("the transpose template needs input [R, C] and output [C, R]"));
    op = transposeOps().front();
    op.inputs.front().dtype = "float64";
    CHECK(kTemplate.check(op, recipeFor(op), kTemplate.defaults(op, recipeFor(op)))
          == std::string("the transpose template handles float32"));
    op = transposeOps().front();
    op.shapeSets.push_back({{"R", 10}});
    CHECK(kTemplate.check(op, recipeFor(op), kTemplate.defaults(op, recipeFor(op)))
          == std::string("shape set 3 does not bind R and C"));
}

TEST_CASE("generate refuses invalid parameters")
{
    Op op = transposeOps().front();
    op.inputs.clear();
    const GeneratedKernel kernel = kTemplate.generate(op, recipeFor(op), kTemplate.defaults(op, recipeFor(op)));
    CHECK(kernel.source
          == std::string("#error \"transpose template: the transpose template needs one input and one output\"\n"));
    CHECK(!parseLaunchPlan(kernel.launchPlan));
}

TEST_CASE("generate is deterministic")
{
    for (const auto &op : transposeOps()) {
        for (const auto &params : validSpace(kTemplate, op, 5)) {
            const GeneratedKernel first = kTemplate.generate(op, recipeFor(op), params);
            const GeneratedKernel second = kTemplate.generate(op, recipeFor(op), params);
            CHECK(first.source == second.source);
            CHECK(first.launchPlan == second.launchPlan);
        }
    }
}
