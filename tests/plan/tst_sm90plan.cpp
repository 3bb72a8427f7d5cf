// Tensor maps and clusters in launch plans (sm_90's copy engine and thread-block clusters): their JSON both ways,
// their resolution for each shape set, and every rejection with its message. The rest of plans is tst_launchplan.
#include "core/plan/launchplan.h"

#include "doctestprinters.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace kx;

namespace {

const char *kTileSource = R"js(
struct CUtensorMap_st { alignas(64) unsigned long long opaque[16]; };
typedef struct CUtensorMap_st CUtensorMap;
extern "C" __global__ void tile_copy(const __grid_constant__ CUtensorMap in, const __grid_constant__ CUtensorMap out,
                                     int rows) {}
extern "C" __global__ void by_pointer(const float* in, float* out, int rows) {}
extern "C" __global__ void no_grid_constant(const CUtensorMap in, float* out, int rows) {}
extern "C" __global__ void one_map(const __grid_constant__ CUtensorMap map, float* out, int rows) {}
)js";

// out = x over an [R, C] matrix; C = 52 floats is a row of 208 bytes (a multiple of 16), R = 37 is odd.
Op matrixOp(const std::string &dtype = "float32")
{
    Op op;
    op.name = "copy";
    op.inputs = {{"x", {"R", "C"}, dtype}};
    op.outputs = {{"out", {"R", "C"}, dtype}};
    op.shapeSets = {{{"R", 37}, {"C", 52}}};
    op.policy.allowLibrarySteps = true;
    op.policy.allowedLibraryOps = {"aten::copy_"};
    return op;
}

// One tile_copy step over x and out; first is the JSON of its first argument, extra goes into the step.
std::string tilePlan(const std::string &first, const std::string &extra = "",
                     const std::string &second = R"js({"tensorMap": "out", "box": ["32", "16"]})js",
                     const std::string &kernel = "tile_copy")
{
    return R"js({"scratch": [{"name": "tmp", "bytes": "4 * R * C"}], "steps": [{"kernel": ")js" + kernel
           + R"js(", "grid": ["ceil_div(C, 32)", "ceil_div(R, 16)"], "block": ["128"], )js" + extra + R"js("args": [)js"
           + first + ", " + second + R"js(, {"int": "R"}]}]})js";
}

Expected<ResolvedPlan> resolve(const std::string &json, const Op &op = matrixOp(), const DeviceLimits &limits = {},
                               const ShapeSet &shapes = {{"R", 37}, {"C", 52}})
{
    const auto plan = parseLaunchPlan(json);
    REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message));
    return resolveLaunchPlan(*plan, op, shapes, parseKernelSignatures(kTileSource), limits);
}

// The resolution's error, or "resolved" when it succeeded (so a failed CHECK prints what happened).
std::string errorOf(const Expected<ResolvedPlan> &resolved)
{
    return resolved ? std::string("resolved") : resolved.error().message;
}

ResolvedKernelStep onlyKernel(const Expected<ResolvedPlan> &resolved)
{
    REQUIRE_MESSAGE(resolved, errorOf(resolved));
    REQUIRE(resolved->steps.size() == std::size_t(1));
    return std::get<ResolvedKernelStep>(resolved->steps[0]);
}

} // namespace

TEST_CASE("tensor maps and clusters are read and written back unchanged")
{
    const auto plan =
        parseLaunchPlan(tilePlan(R"js({"tensorMap": "x", "box": ["32", 16], "dims": ["C", "R"], "swizzle": "128B"})js",
                                 R"js("cluster": ["2", "1"], )js"));
    REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message));
    const auto &step = std::get<KernelStep>(plan->steps[0]);
    CHECK(step.cluster == std::vector<std::string>{"2", "1"});
    REQUIRE(step.args.size() == std::size_t(3));
    CHECK(step.args[0].kind == PlanArg::Kind::TensorMap);
    CHECK(step.args[0].name == "x");
    CHECK(step.args[0].box == std::vector<std::string>{"32", "16"});
    CHECK(step.args[0].dims == std::vector<std::string>{"C", "R"});
    CHECK(step.args[0].swizzle == "128B");
    CHECK(step.args[1].swizzle == "none"); // the default
    CHECK(step.args[1].dims.empty());

    const std::string json = toJson(*plan);
    CHECK(json.find(R"js("cluster": [)js") != std::string::npos);
    CHECK(json.find(R"js("tensorMap": "x")js") != std::string::npos);
    const auto again = parseLaunchPlan(json);
    REQUIRE(again);
    CHECK(*again == *plan);
    CHECK(toJson(*again) == json);

    // A step without a cluster writes none.
    const auto plain = parseLaunchPlan(tilePlan(R"js({"tensorMap": "x", "box": ["32", "16"]})js"));
    REQUIRE(plain);
    CHECK(toJson(*plain).find("cluster") == std::string::npos);
}

TEST_CASE("malformed tensor maps and clusters are parse errors that say where")
{
    const struct
    {
        const char *name;
        std::string json;
        const char *expected;
    } rows[] = {
        {"no box", tilePlan(R"js({"tensorMap": "x"})js"), "steps[0].args[0]: missing \"box\""},
        {"unknown swizzle", tilePlan(R"js({"tensorMap": "x", "box": ["32", "16"], "swizzle": "16B"})js"),
         "steps[0].args[0].swizzle: must be \"none\", \"32B\", \"64B\" or \"128B\""},
        {"unknown key", tilePlan(R"js({"tensorMap": "x", "box": ["32", "16"], "strides": ["208"]})js"),
         "steps[0].args[0]: unknown key 'strides'"},
        {"box not an array", tilePlan(R"js({"tensorMap": "x", "box": "32"})js"),
         "steps[0].args[0].box: must be an array of expressions"},
        {"empty name", tilePlan(R"js({"tensorMap": "", "box": ["32", "16"]})js"),
         "steps[0].args[0].tensorMap: must be a non-empty string"},
        {"four cluster dimensions",
         tilePlan(R"js({"tensorMap": "x", "box": ["32", "16"]})js", R"js("cluster": [1, 1, 1, 1], )js"),
         "steps[0].cluster: must be an array of 1 to 3 expressions"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            const auto plan = parseLaunchPlan(row.json);
            REQUIRE_FALSE(plan);
            CHECK(plan.error().message.rfind(row.expected, 0) == 0);
            MESSAGE(plan.error().message);
        }
    }
}

TEST_CASE("a tensor map resolves to the dims, strides and box the driver is given, innermost first")
{
    const auto &step =
        onlyKernel(resolve(tilePlan(R"js({"tensorMap": "x", "box": ["32", "16"], "swizzle": "128B"})js")));
    const ResolvedTensorMap &map = step.args[0].tensorMap;
    CHECK(step.args[0].kind == PlanArg::Kind::TensorMap);
    CHECK(step.args[0].name == "x");
    CHECK(map.tensorKind == PlanArg::Kind::Input);
    CHECK(map.dtype == "float32");
    CHECK(map.elementBytes == 4);
    CHECK(map.dims == std::vector<std::int64_t>{52, 37});
    CHECK(map.strides == std::vector<std::int64_t>{208});
    CHECK(map.box == std::vector<std::int64_t>{32, 16});
    CHECK(map.swizzleBytes == 128);
    // The output is written through its map: no "never written" error.
    CHECK(step.args[1].tensorMap.tensorKind == PlanArg::Kind::Output);
    CHECK(step.args[1].tensorMap.swizzleBytes == 0);
    CHECK_FALSE(step.hasCluster);

    // Dims given explicitly: the same matrix seen as 3-D, and a scratch buffer seen through its first elements.
    const auto &seen =
        onlyKernel(resolve(tilePlan(R"js({"tensorMap": "x", "box": ["4", "13", "37"], "dims": ["4", "13", "R"]})js")));
    CHECK(seen.args[0].tensorMap.dims == std::vector<std::int64_t>{4, 13, 37});
    CHECK(seen.args[0].tensorMap.strides == std::vector<std::int64_t>{16, 208});
    const auto &scratch =
        onlyKernel(resolve(tilePlan(R"js({"tensorMap": "tmp", "box": ["8", "8"], "dims": ["C", "R"]})js", "",
                                    R"js({"output": "out"})js", "one_map")));
    CHECK(scratch.args[0].tensorMap.tensorKind == PlanArg::Kind::Scratch);
    CHECK(scratch.args[0].tensorMap.dims == std::vector<std::int64_t>{52, 37});

    // Half precision: 8 elements make the 16 bytes of an inner box; rows of 56 halves are 112 bytes.
    const auto &half =
        onlyKernel(resolve(tilePlan(R"js({"tensorMap": "x", "box": ["8", "16"]})js", "",
                                    R"js({"tensorMap": "out", "box": ["64", "1"], "swizzle": "128B"})js"),
                           matrixOp("float16"), {}, {{"R", 37}, {"C", 56}}));
    CHECK(half.args[0].tensorMap.elementBytes == 2);
    CHECK(half.args[0].tensorMap.strides == std::vector<std::int64_t>{112});
}

TEST_CASE("tensor maps the copy engine cannot use are rejected with the reason")
{
    const struct
    {
        const char *name;
        std::string json;
        const char *expected;
        ShapeSet shapes = {{"R", 37}, {"C", 52}};
    } rows[] = {
        {"box entry of 0", tilePlan(R"js({"tensorMap": "x", "box": ["32", "0"]})js"),
         "steps[0].args[0].box[1]: 0 is outside 1..256, the box sizes of a tensor map"},
        {"box entry above 256", tilePlan(R"js({"tensorMap": "x", "box": ["32", "R * 7"]})js"),
         "steps[0].args[0].box[1]: 259 is outside 1..256, the box sizes of a tensor map"},
        {"inner box not whole 16 bytes", tilePlan(R"js({"tensorMap": "x", "box": ["6", "16"]})js"),
         "steps[0].args[0].box[0]: the box's inner extent is 24 bytes (6 float32 elements); it must be a multiple of "
         "16 bytes"},
        {"inner box wider than the swizzle",
         tilePlan(R"js({"tensorMap": "x", "box": ["16", "16"], "swizzle": "32B"})js"),
         "steps[0].args[0].box[0]: the box's inner extent is 64 bytes (16 float32 elements); with swizzle 32B it "
         "may span at most 32"},
        {"inner box wider than 128B", tilePlan(R"js({"tensorMap": "x", "box": ["64", "2"], "swizzle": "128B"})js"),
         "steps[0].args[0].box[0]: the box's inner extent is 256 bytes (64 float32 elements); with swizzle 128B it "
         "may span at most 128"},
        {"box of another rank", tilePlan(R"js({"tensorMap": "x", "box": ["32"]})js"),
         "steps[0].args[0].box: has 1 entries, the tensor map has 2 dimensions"},
        {"row stride not whole 16 bytes",
         tilePlan(R"js({"tensorMap": "x", "box": ["32", "16"]})js"),
         "steps[0].args[0].dims: the stride of dimension 1 is 200 bytes (50 x 4 bytes); a tensor map's strides must "
         "be multiples of 16 bytes",
         {{"R", 37}, {"C", 50}}},
        {"stride of 2^40 bytes or more",
         tilePlan(R"js({"tensorMap": "x", "box": ["4", "4", "1"], "dims": ["4294967296", "256", "1"]})js"),
         "steps[0].args[0].dims: the stride of dimension 2 exceeds 2^40 bytes, the largest of a tensor map"},
        {"dimension above 2^32", tilePlan(R"js({"tensorMap": "x", "box": ["4", "1"], "dims": ["4294967300", "1"]})js"),
         "steps[0].args[0].dims[0]: 4294967300 exceeds 2^32, the largest dimension of a tensor map"},
        {"dimension of 0", tilePlan(R"js({"tensorMap": "x", "box": ["4", "1"], "dims": ["C", "R - 37"]})js"),
         "steps[0].args[0].dims[1]: must be positive, got 0"},
        {"six dimensions", tilePlan(R"js({"tensorMap": "x", "box": ["4", "1", "1", "1", "1", "1"],
                        "dims": ["4", "13", "37", "1", "1", "1"]})js"),
         "steps[0].args[0].dims: a tensor map has 1 to 5 dimensions, 'x' is seen with 6"},
        {"dims that do not hold the tensor",
         tilePlan(R"js({"tensorMap": "x", "box": ["32", "16"], "dims": ["C", "36"]})js"),
         "steps[0].args[0].dims: 1872 elements, but 'x' holds 1924"},
        {"unknown tensor", tilePlan(R"js({"tensorMap": "y", "box": ["32", "16"]})js"),
         "steps[0].args[0].tensorMap: unknown tensor 'y' (inputs and outputs of 'copy': x; out; scratch: tmp)"},
        {"scratch without dims", tilePlan(R"js({"tensorMap": "tmp", "box": ["32", "16"]})js"),
         "steps[0].args[0]: the tensor map of scratch buffer 'tmp' needs \"dims\" (a scratch buffer is a flat float32 "
         "vector)"},
        {"scratch too small", tilePlan(R"js({"tensorMap": "tmp", "box": ["32", "16"], "dims": ["C", "R + 1"]})js"),
         "steps[0].args[0].dims: the map spans 7904 bytes, scratch buffer 'tmp' has 7696"},
        {"tensor map for a pointer",
         tilePlan(R"js({"tensorMap": "x", "box": ["32", "16"]})js", "", R"js({"output": "out"})js", "by_pointer"),
         "steps[0].args[0]: a tensorMap argument needs a `const __grid_constant__ CUtensorMap` parameter, but "
         "parameter 0 'in' is const float*"},
        {"tensor map parameter without __grid_constant__",
         tilePlan(R"js({"tensorMap": "x", "box": ["32", "16"]})js", "", R"js({"output": "out"})js", "no_grid_constant"),
         "steps[0].args[0]: a tensorMap argument needs a `const __grid_constant__ CUtensorMap` parameter, but "
         "parameter 0 'in' is const CUtensorMap"},
        {"pointer for a tensor map", tilePlan(R"js({"input": "x"})js", "", R"js({"output": "out"})js", "one_map"),
         "steps[0].args[0]: input 'x' needs a pointer parameter, but parameter 0 'map' is const __grid_constant__ "
         "CUtensorMap"},
        {"int for a tensor map", tilePlan(R"js({"int": "R"})js", "", R"js({"output": "out"})js", "one_map"),
         "steps[0].args[0]: an int argument needs an integer parameter, but parameter 0 'map' is const "
         "__grid_constant__ CUtensorMap"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            const auto resolved = resolve(row.json, matrixOp(), {}, row.shapes);
            CHECK(errorOf(resolved) == row.expected);
        }
    }
    SUBCASE("half precision with an inner box of 8 bytes")
    {
        CHECK(errorOf(resolve(tilePlan(R"js({"tensorMap": "x", "box": ["4", "16"]})js"), matrixOp("float16"), {},
                              {{"R", 37}, {"C", 56}}))
              == "steps[0].args[0].box[0]: the box's inner extent is 8 bytes (4 float16 elements); it must be a "
                 "multiple of 16 bytes");
    }
    SUBCASE("a library step")
    {
        const std::string json = R"js({"steps": [{"library": "aten::copy_", "args": [{"output": "out"},
                                     {"tensorMap": "x", "box": ["32", "16"]}]}]})js";
        CHECK(errorOf(resolve(json)) == "steps[0].args[1]: a tensor map is for kernel steps");
    }
}

TEST_CASE("a cluster resolves per shape set and divides the grid")
{
    const std::string map = R"js({"tensorMap": "x", "box": ["32", "16"]})js";
    const auto &step = onlyKernel(resolve(tilePlan(map, R"js("cluster": ["2"], )js")));
    CHECK(step.hasCluster);
    CHECK(step.cluster == std::array<std::int64_t, 3>{2, 1, 1});
    CHECK(onlyKernel(resolve(tilePlan(map, R"js("cluster": ["1", "3"], )js"))).cluster
          == std::array<std::int64_t, 3>{1, 3, 1});
    // Past the portable 8 blocks, up to Hopper's 16 (the launcher opts the kernel in): grid [16, 3] here.
    const auto wide = resolve(tilePlan(map, R"js("cluster": ["16"], )js"), matrixOp(), {}, {{"R", 37}, {"C", 512}});
    CHECK_MESSAGE(wide, errorOf(wide));
    if (wide)
        CHECK(onlyKernel(wide).cluster == std::array<std::int64_t, 3>{16, 1, 1});

    const struct
    {
        const char *name;
        std::string cluster;
        const char *expected;
    } rows[] = {
        {"zero blocks", R"js("cluster": ["2", "0"], )js", "steps[0].cluster[1]: must be positive, got 0"},
        {"more than 16 blocks in one dimension", R"js("cluster": ["32"], )js",
         "steps[0].cluster[0]: 32 blocks exceed the cluster size of 16"},
        {"more than 16 blocks in all", R"js("cluster": ["2", "3", "3"], )js",
         "steps[0].cluster: a cluster of 18 blocks exceeds the largest cluster size of 16"},
        {"a grid that is no multiple", R"js("cluster": ["1", "2"], )js",
         "steps[0].cluster[1]: the grid's 3 blocks in dimension 1 are not a multiple of the cluster's 2"},
        {"an unknown symbol", R"js("cluster": ["K"], )js", "steps[0].cluster[0]: unknown symbol"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            const std::string error = errorOf(resolve(tilePlan(map, row.cluster)));
            CHECK_MESSAGE(error.rfind(row.expected, 0) == 0, error);
        }
    }
    SUBCASE("checked on every shape set: a cluster that fits the first only")
    {
        Op op = matrixOp();
        op.shapeSets = {{{"R", 64}, {"C", 64}}, {{"R", 37}, {"C", 52}}}; // grid [2, 4], then [2, 3]
        const auto plan = parseLaunchPlan(tilePlan(map, R"js("cluster": ["1", "2"], )js"));
        REQUIRE(plan);
        const Status fits = checkLaunchPlanFits(*plan, op, parseKernelSignatures(kTileSource));
        REQUIRE_FALSE(fits);
        CHECK(fits.error().message
              == "launch plan for shapes {C=52, R=37}: steps[0].cluster[1]: the grid's 3 blocks in dimension 1 are not "
                 "a multiple of the cluster's 2");
    }
}

TEST_CASE("clusters and tensor maps need sm_90 where the device is known")
{
    const std::string map = R"js({"tensorMap": "x", "box": ["32", "16"]})js";
    DeviceLimits ampere;
    ampere.computeCapability = 80;
    CHECK(errorOf(resolve(tilePlan(map), matrixOp(), ampere))
          == "steps[0].args[0]: tensor maps need sm_90 or later; the GPU has compute capability 8.0");
    CHECK(errorOf(resolve(tilePlan(map, R"js("cluster": ["2"], )js"), matrixOp(), ampere))
          == "steps[0].cluster: clusters need sm_90 or later; the GPU has compute capability 8.0");

    DeviceLimits hopper;
    hopper.computeCapability = 90;
    CHECK(onlyKernel(resolve(tilePlan(map, R"js("cluster": ["2"], )js"), matrixOp(), hopper)).hasCluster);
    // Not known (the host's check before a worker): left to the worker.
    CHECK(onlyKernel(resolve(tilePlan(map, R"js("cluster": ["2"], )js"), matrixOp(), DeviceLimits{})).hasCluster);
}
