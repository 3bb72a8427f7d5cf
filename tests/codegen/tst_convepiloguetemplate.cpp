// The conv-epilogue template: parameter checks, the library step, real NVRTC compiles and plan resolution.
#include "core/codegen/convepiloguetemplate.h"
#include "core/plan/launchplan.h"

#include "templatetestsupport.h"

#include <doctest/doctest.h>

using namespace kx;
using namespace kx::test;

namespace {

Op convOp(const std::string &name, std::vector<ShapeSet> shapeSets, const std::string &recipe)
{
    Op op;
    op.name = name;
    op.inputs = {tensor("x", {"B", "CIN", "H", "W"}), tensor("weight", {"COUT", "CIN", "KH", "KW"}),
                 tensor("bias", {"COUT"})};
    op.outputs = {tensor("y", {"B", "COUT", "OH", "OW"})};
    op.shapeSets = std::move(shapeSets);
    op.policy.allowLibrarySteps = true;
    op.policy.allowedLibraryOps = {"aten::conv2d"};
    op.recipe = recipe;
    return op;
}

ShapeSet convShapes(long long b, long long cin, long long h, long long w, long long cout, long long kh, long long kw)
{
    return {{"B", b},   {"CIN", cin}, {"H", h},           {"W", w},          {"COUT", cout},
            {"KH", kh}, {"KW", kw},   {"OH", h - kh + 1}, {"OW", w - kw + 1}};
}

// conv2d + bias + relu twice (the second with output planes that are not multiples of 4 or of any block),
// and a variant with a differently named bias and a tanh epilogue.
std::vector<Op> convOps()
{
    const std::string relu =
        R"j({"family": "conv-epilogue", "bias": "bias", "expression": "fmaxf(acc + bias[c], 0.0f)"})j";
    std::vector<Op> ops;
    ops.push_back(
        convOp("conv2d_bias_relu", {convShapes(8, 64, 56, 56, 128, 3, 3), convShapes(2, 16, 32, 32, 32, 5, 5)}, relu));
    ops.push_back(convOp("conv2d_bias_relu_odd",
                         {convShapes(8, 64, 56, 56, 128, 3, 3), convShapes(3, 3, 31, 33, 17, 3, 3)}, relu));
    Op tanh = convOp("conv2d_bias_tanh", {convShapes(4, 32, 28, 28, 64, 1, 1), convShapes(1, 8, 20, 12, 16, 3, 5)},
                     R"j({"family": "conv-epilogue", "bias": "b", "expression": "tanhf(acc + b[c])"})j");
    tanh.inputs[2].name = "b";
    ops.push_back(tanh);
    return ops;
}

const ConvEpilogueTemplate kTemplate;

} // namespace

TEST_CASE("is registered")
{
    const Op op = convOps().front();
    const KernelTemplate *found = findKernelTemplate("conv-epilogue");
    REQUIRE(found);
    CHECK(found->supports(op, recipeFor(op)));
}

TEST_CASE("the defaults compile and resolve" * needsNvrtc())
{
    for (const auto &row : opAndArchRows(convOps())) {
        SUBCASE(row.name.c_str())
        {
            const Op conv = convOps()[row.op];
            const std::string problem =
                verifyCandidate(kTemplate, conv, kTemplate.defaults(conv, recipeFor(conv)), row.arch);
            CHECK_MESSAGE(problem.empty(), problem);
        }
    }
}

// The space is small: every valid combination of the three ops (seeded order).
TEST_CASE("every valid combination compiles and resolves" * needsNvrtc())
{
    const SpaceVerification space = verifyWholeSpace(kTemplate, convOps(), 41);
    CHECK_MESSAGE(space.problem.empty(), space.problem);
    // 48 combinations per op (cuDNN's algorithm by heuristics or by timing); the odd op cannot take float4 (24
    // rejected).
    CHECK(space.compiled == 48 + 24 + 48);
    CHECK(space.rejected == 24);
}

// The library step's contract: aten::conv2d(x, weight) written into scratch "conv" of 4 * B*C_out*OH*OW bytes.
TEST_CASE("the plan runs the convolution into scratch")
{
    const Op op = convOps()[1];
    const Params params{{"block", 128}, {"vec", 1}, {"items", 2}, {"cudnnBenchmark", 0}};
    const GeneratedKernel kernel = kTemplate.generate(op, recipeFor(op), params);
    const auto plan = parseLaunchPlan(kernel.launchPlan);
    REQUIRE(plan);
    REQUIRE(plan->steps.size() == std::size_t(2));
    const auto *library = std::get_if<LibraryStep>(&plan->steps[0]);
    REQUIRE(library);
    CHECK(library->op == std::string("aten::conv2d"));
    CHECK_FALSE(library->cudnnBenchmark); // cuDNN's heuristics, as eager PyTorch's
    const auto timed =
        parseLaunchPlan(kTemplate.generate(op, recipeFor(op), with(params, {{"cudnnBenchmark", 1}})).launchPlan);
    REQUIRE(timed);
    CHECK(std::get<LibraryStep>(timed->steps[0]).cudnnBenchmark);
    REQUIRE(library->args.size() == std::size_t(3));
    CHECK(library->args[0].kind == PlanArg::Kind::Input);
    CHECK(library->args[0].name == std::string("x"));
    CHECK(library->args[1].kind == PlanArg::Kind::Input);
    CHECK(library->args[1].name == std::string("weight"));
    CHECK(library->args[2].kind == PlanArg::Kind::Scratch);
    CHECK(library->args[2].name == std::string("conv"));

    const ShapeSet &odd = op.shapeSets[1];
    const auto resolved = resolveLaunchPlan(*plan, op, odd, parseKernelSignatures(kernel.source));
    REQUIRE_MESSAGE(resolved, (resolved ? "" : resolved.error().message));
    const std::int64_t elements = 3 * 17 * 29 * 31;
    CHECK(resolved->scratchBytes.front() == (std::pair<std::string, std::int64_t>("conv", 4 * elements)));
    const auto &epilogue = std::get<ResolvedKernelStep>(resolved->steps[1]);
    CHECK(epilogue.kernel == std::string("conv_epilogue_kernel"));
    CHECK(epilogue.args[0].name == std::string("conv"));
    CHECK(epilogue.args[1].name == std::string("bias"));
    CHECK(epilogue.args[2].name == std::string("y"));
    CHECK(epilogue.args[3].intValue == elements);
    CHECK(epilogue.args[4].intValue == std::int64_t(17));
    CHECK(epilogue.args[5].intValue == std::int64_t(29 * 31));
    CHECK(epilogue.grid[0] == (elements + 255) / 256);
    CHECK(epilogue.block[0] == std::int64_t(128));
}

TEST_CASE("the source states every parameter")
{
    const Op op = convOps()[2];
    const Params params{{"block", 512}, {"vec", 4}, {"items", 4}, {"cudnnBenchmark", 1}};
    const std::string source = kTemplate.generate(op, recipeFor(op), params).source;
    const std::string unstated = unstatedParameters(kTemplate, op, params, source);
    CHECK_MESSAGE(unstated.empty(), unstated);
    CHECK(source.find("return tanhf(acc + b[c]);") != std::string::npos);
    CHECK(source.find("reinterpret_cast<const float4 *>(conv)") != std::string::npos);
}

TEST_CASE("rejects invalid combinations")
{
    const struct
    {
        const char *name;
        std::size_t op;
        std::string changes;
        std::string reason;
    } rows[] = {
        {"odd plane", 1, "vec=4", "vector width 4 needs OH * OW divisible by it (shape set 2 has 899)"},
        {"value", 0, "block=64", "epilogue block size 64 is not one of the allowed values"},
        {"missing", 0, "-items", "missing parameter items"},
        {"unknown", 0, "unroll=2", "unknown parameter unroll"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            const Op conv = convOps()[row.op];
            const Params params = withChanges(kTemplate.defaults(conv, recipeFor(conv)), row.changes);
            CHECK(kTemplate.check(conv, recipeFor(conv), params) == row.reason);
        }
    }
}

TEST_CASE("rejects ops it cannot handle")
{
    const struct
    {
        const char *name;
        int variant;
        std::string reason;
    } rows[] = {
        {"policy", 0,
         "the conv-epilogue template runs the convolution as a library step: the op's policy must allow aten::conv2d"},
        {"padding", 1,
         "shape set 1: the conv-epilogue template supports stride 1 without padding only, so the output must be 54 x "
         "54, not 56 x 56"},
        {"channels", 2, "shape set 2: x has 16 channels, the weight expects 8"},
        {"rank", 3, "x, weight and the output must be 4-D: [B, C_in, H, W], [C_out, C_in, KH, KW], [B, C_out, OH, OW]"},
        {"bias name", 4, "the recipe's bias 'beta' is not an input of the op"},
        {"statement", 5, "the epilogue must be a single expression (no ';', braces or preprocessor lines)"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            Op op = convOps().front();
            switch (row.variant) {
            case 0: op.policy.allowLibrarySteps = false; break;
            case 1:
                for (auto &shapes : op.shapeSets) {
                    shapes["OH"] = shapes["H"];
                    shapes["OW"] = shapes["W"];
                }
                break;
            case 2: // the weight's input channels get their own symbol, which disagrees with x in the second set
                op.inputs[1].shape[1] = "WCIN";
                op.shapeSets[0]["WCIN"] = 64;
                op.shapeSets[1]["WCIN"] = 8;
                break;
            case 3: op.inputs[0].shape = {"B", "CIN", "H"}; break;
            case 4: op.recipe = R"j({"family": "conv-epilogue", "bias": "beta"})j"; break;
            case 5: op.recipe = R"j({"family": "conv-epilogue", "expression": "acc; return 0.0f"})j"; break;
            }
            CHECK(kTemplate.check(op, recipeFor(op), kTemplate.defaults(op, recipeFor(op))) == row.reason);
        }
    }
}

TEST_CASE("generate refuses invalid parameters")
{
    Op op = convOps().front();
    op.outputs.clear();
    const GeneratedKernel kernel = kTemplate.generate(op, recipeFor(op), kTemplate.defaults(op, recipeFor(op)));
    CHECK(kernel.source
          == std::string("#error \"conv-epilogue template: the conv-epilogue template needs inputs x, "
                         "weight (and a bias) and one output\"\n"));
    CHECK(!parseLaunchPlan(kernel.launchPlan));
}

TEST_CASE("generate is deterministic")
{
    for (const auto &op : convOps()) {
        for (const auto &params : validSpace(kTemplate, op, 3)) {
            const GeneratedKernel first = kTemplate.generate(op, recipeFor(op), params);
            const GeneratedKernel second = kTemplate.generate(op, recipeFor(op), params);
            CHECK(first.source == second.source);
            CHECK(first.launchPlan == second.launchPlan);
        }
    }
}
