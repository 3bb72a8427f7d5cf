// The gemm template: parameter checks, generated source and plan, real NVRTC compiles and plan resolution.
#include "core/codegen/gemmtemplate.h"
#include "core/plan/launchplan.h"

#include "templatetestsupport.h"

#include <doctest/doctest.h>

using namespace kx;
using namespace kx::test;

namespace {

const GemmTemplate kTemplate;

} // namespace

TEST_CASE("is registered")
{
    const KernelTemplate *found = findKernelTemplate("gemm");
    REQUIRE(found);
    CHECK(found->supports(gemmTestOp("matmul_square"), recipeFor(gemmTestOp("matmul_square"))));
}

TEST_CASE("the defaults are valid")
{
    for (const auto &op : gemmTestOps()) {
        SUBCASE(op.name.c_str())
        {
            const Op &gemm = gemmTestOp(op.name);
            const OpRecipe recipe = recipeFor(gemm);
            const Params defaults = kTemplate.defaults(gemm, recipe);
            CHECK(kTemplate.check(gemm, recipe, defaults) == std::string());
            // A plain tiled kernel: no split-K, no double buffering, scalar loads.
            CHECK(defaults.at("splitK") == 1);
            CHECK(defaults.at("doubleBuffer") == 0);
            CHECK(defaults.at("vec") == 1);
        }
    }
}

TEST_CASE("the defaults compile and resolve" * needsNvrtc())
{
    const auto ops = gemmTestOps();
    for (const auto &row : opAndArchRows(ops)) {
        SUBCASE(row.name.c_str())
        {
            const Op &gemm = gemmTestOp(ops[row.op].name);
            const std::string problem =
                verifyCandidate(kTemplate, gemm, kTemplate.defaults(gemm, recipeFor(gemm)), row.arch);
            CHECK_MESSAGE(problem.empty(), problem);
        }
    }
}

TEST_CASE("random combinations compile and resolve" * needsNvrtc())
{
    int compiled = 0, splitK = 0, doubleBuffer = 0, vectorised = 0, padded = 0;
    unsigned seed = 2024;
    for (const auto &op : gemmTestOps()) {
        const auto samples = sampleValid(kTemplate, op, seed++, 12);
        CHECK(samples.size() == std::size_t(12));
        for (const auto &params : samples) {
            const std::string arch = compiled % 2 ? "sm_90" : "sm_80";
            const std::string problem = verifyCandidate(kTemplate, op, params, arch);
            CHECK_MESSAGE(problem.empty(), problem);
            ++compiled;
            splitK += params.at("splitK") > 1;
            doubleBuffer += params.at("doubleBuffer");
            vectorised += params.at("vec") == 4;
            padded += params.at("pad");
        }
    }
    CHECK(compiled == 48);
    // The sample reaches every optional feature of the template.
    CHECK((splitK > 0 && doubleBuffer > 0 && vectorised > 0 && padded > 0));
}

TEST_CASE("large shared tiles use dynamic shared memory" * needsNvrtc())
{
    const Op &op = gemmTestOp("matmul_square");
    const Params params =
        with(kTemplate.defaults(op, recipeFor(op)),
             {{"bm", 128}, {"bn", 128}, {"bk", 32}, {"tm", 8}, {"tn", 8}, {"pad", 1}, {"doubleBuffer", 1}});
    CHECK(kTemplate.check(op, recipeFor(op), params) == std::string());
    const GeneratedKernel kernel = kTemplate.generate(op, recipeFor(op), params);
    CHECK(kernel.source.find("extern __shared__ float shared[];") != std::string::npos);
    const auto plan = parseLaunchPlan(kernel.launchPlan);
    REQUIRE(plan);
    const auto resolved = resolveLaunchPlan(*plan, op, op.shapeSets.front(), parseKernelSignatures(kernel.source));
    REQUIRE_MESSAGE(resolved, (resolved ? "" : resolved.error().message));
    const auto &step = std::get<ResolvedKernelStep>(resolved->steps.front());
    // Two stages of BK x (BM + PAD) + BK x (BN + PAD) floats: more than the 48 KiB of static shared memory.
    CHECK(step.sharedBytes == std::int64_t(2 * 4 * 32 * (129 + 129)));
    CHECK(step.sharedBytes > 48 * 1024);
    CHECK(step.block[0] == std::int64_t(256));
    CHECK(step.grid[0] == std::int64_t(8));
    CHECK(step.grid[1] == std::int64_t(8));
    CHECK_MESSAGE(verifyCandidate(kTemplate, op, params, "sm_80").empty(), "the largest tile compiles");
}

TEST_CASE("a split-K plan uses scratch and two kernels")
{
    const Op &op = gemmTestOp("matmul_scale_residual_clamp");
    const Params params = with(kTemplate.defaults(op, recipeFor(op)), {{"splitK", 4}});
    CHECK(kTemplate.check(op, recipeFor(op), params) == std::string());
    const GeneratedKernel kernel = kTemplate.generate(op, recipeFor(op), params);
    const auto plan = parseLaunchPlan(kernel.launchPlan);
    REQUIRE(plan);
    const ShapeSet &odd = op.shapeSets[1];
    const auto resolved = resolveLaunchPlan(*plan, op, odd, parseKernelSignatures(kernel.source));
    REQUIRE_MESSAGE(resolved, (resolved ? "" : resolved.error().message));
    REQUIRE(resolved->scratchBytes.size() == std::size_t(1));
    CHECK(resolved->scratchBytes.front().first == std::string("partial"));
    CHECK(resolved->scratchBytes.front().second == std::int64_t(4 * 4 * 999 * 500));
    REQUIRE(resolved->steps.size() == std::size_t(2));
    const auto &partial = std::get<ResolvedKernelStep>(resolved->steps[0]);
    CHECK(partial.kernel == std::string("gemm_partial_kernel"));
    CHECK(partial.grid[2] == std::int64_t(4));
    CHECK(partial.grid[1] == std::int64_t((999 + 63) / 64));
    const auto &reduce = std::get<ResolvedKernelStep>(resolved->steps[1]);
    CHECK(reduce.kernel == std::string("splitk_epilogue_kernel"));
    CHECK(reduce.grid[0] * reduce.block[0] >= std::int64_t(999 * 500));
    // The epilogue (with its residual input) runs in the second kernel only.
    CHECK(reduce.args[1].name == std::string("res"));
    CHECK(reduce.args[2].name == std::string("out"));
    CHECK(kernel.source.find("SPLIT_K = 4") != std::string::npos);
}

TEST_CASE("the source states every parameter")
{
    const Op &op = gemmTestOp("linear_bias_relu");
    const OpRecipe recipe = recipeFor(op);
    const Params params = kTemplate.defaults(op, recipe);
    const std::string source = kTemplate.generate(op, recipe, params).source;
    const std::string unstated = unstatedParameters(kTemplate, op, params, source);
    CHECK_MESSAGE(unstated.empty(), unstated);
    CHECK(source.find("fmaxf(acc, 0.0f)") != std::string::npos);
    CHECK(source.find("bias[n]") != std::string::npos);
    CHECK(source.find("weight[n, k]") != std::string::npos);
}

TEST_CASE("rejects invalid combinations")
{
    const struct
    {
        const char *name;
        std::string op;
        std::string changes; // "name=value,..." applied to the defaults; "-name" removes one
        std::string reason;
    } rows[] = {
        {"too many threads", "matmul_square", "bm=128,bn=128,tm=1,tn=2",
         "(128/1) x (128/2) = 8192 threads per block exceed 1024"},
        {"less than a warp", "matmul_square", "bm=32,bn=32,tm=8,tn=8",
         "(32/8) x (32/8) = 16 threads per block are less than a warp (32)"},
        {"value not allowed", "matmul_square", "bk=12", "k slice per shared tile 12 is not one of the allowed values"},
        {"missing", "matmul_square", "-splitK", "missing parameter splitK"},
        {"unknown", "matmul_square", "unroll=2", "unknown parameter unroll"},
        {"vec with odd N", "matmul_tall_skinny", "vec=4",
         "float4 loads of b need N divisible by 4 (shape set 2 has N = 33)"},
        {"vec with odd K", "matmul_scale_residual_clamp", "vec=4",
         "float4 loads need K divisible by 4 (shape set 2 has K = 77)"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            const Op &gemm = gemmTestOp(row.op);
            const Params params = withChanges(kTemplate.defaults(gemm, recipeFor(gemm)), row.changes);
            CHECK(kTemplate.check(gemm, recipeFor(gemm), params) == row.reason);
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
        {"b shape", 0, "input b is [N, K], the recipe needs [K, N]"},
        {"missing bias", 1, "the recipe's bias 'c' is not an input of the op"},
        {"half", 2, "input a is float16: the gemm template handles float32"},
        {"name clash", 3, "tensor name 'acc' clashes with a name of the generated code"},
        {"statement", 4, "the epilogue must be a single expression (no ';', braces or preprocessor lines)"},
        {"unbound", 5, "shape set 1 does not bind M, N and K"},
        {"three operands", 6,
         "the gemm template needs exactly two operand inputs besides bias and epilogue inputs (the op has 3)"},
        {"twice", 7, "'res' appears twice among the bias and epilogue inputs"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            Op op = gemmTestOp("matmul_square");
            switch (row.variant) {
            case 0: op.inputs[1].shape = {"N", "K"}; break;
            case 1: op.recipe = R"j({"family": "gemm", "bias": "c"})j"; break;
            case 2: op.inputs[0].dtype = "float16"; break;
            case 3: op.inputs[0].name = "acc"; break;
            case 4: op.recipe = R"j({"family": "gemm", "expression": "acc; return 0.0f"})j"; break;
            case 5: op.shapeSets = {{{"M", 64}, {"N", 64}}}; break;
            case 6: op.inputs.push_back(tensor("extra", {"M", "N"})); break;
            case 7:
                op.inputs.push_back(tensor("res", {"M", "N"}));
                op.recipe = R"j({"family": "gemm", "epilogueInputs": ["res", "res"], "expression": "acc + res"})j";
                break;
            }
            const OpRecipe recipe = recipeFor(op);
            CHECK(kTemplate.check(op, recipe, kTemplate.defaults(op, recipe)) == row.reason);
        }
    }
}

TEST_CASE("generate refuses invalid parameters")
{
    const Op &op = gemmTestOp("matmul_square");
    const Params params = with(kTemplate.defaults(op, recipeFor(op)), {{"tm", 1}, {"tn", 1}});
    const GeneratedKernel kernel = kTemplate.generate(op, recipeFor(op), params);
    CHECK(kernel.source
          == std::string("#error \"gemm template: (64/1) x (64/1) = 4096 threads per block exceed 1024\"\n"));
    CHECK(!parseLaunchPlan(kernel.launchPlan));
    Op broken = op;
    broken.inputs.pop_back(); // one operand: nothing to multiply, and no crash either
    CHECK(kTemplate.generate(broken, recipeFor(broken), kTemplate.defaults(broken, recipeFor(broken)))
              .source.rfind("#error", 0)
          == 0);
}

TEST_CASE("generate is deterministic")
{
    for (const auto &op : gemmTestOps()) {
        const OpRecipe recipe = recipeFor(op);
        for (const auto &params : sampleValid(kTemplate, op, 7, 5)) {
            const GeneratedKernel first = kTemplate.generate(op, recipe, params);
            const GeneratedKernel second = kTemplate.generate(op, recipe, params);
            CHECK(first.source == second.source);
            CHECK(first.launchPlan == second.launchPlan);
        }
    }
    // Different parameters give different code.
    const Op &op = gemmTestOp("matmul_square");
    const Params defaults = kTemplate.defaults(op, recipeFor(op));
    CHECK(kTemplate.generate(op, recipeFor(op), defaults).source
          != kTemplate.generate(op, recipeFor(op), with(defaults, {{"pad", 1}})).source);
}
