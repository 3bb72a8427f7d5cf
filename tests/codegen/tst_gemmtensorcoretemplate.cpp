// The tensor-core gemm template: parameter checks, generated source and plan, real NVRTC compiles and plan
// resolution. That its kernels compute the right numbers is checked on the GPU (tst_catalog).
#include "core/codegen/gemmcommon.h"
#include "core/codegen/gemmtensorcoretemplate.h"
#include "core/plan/launchplan.h"

#include "templatetestsupport.h"

#include <doctest/doctest.h>

#include <algorithm>

using namespace kx;
using namespace kx::test;

namespace {
const GemmTensorCoreTemplate kTemplate;

// The kernel's plan resolved on the op's second shape set (B 37, IN 300, OUT 130: no dimension a tile's multiple).
ResolvedPlan resolvedOnOddShapes(const Op &op, const GeneratedKernel &kernel)
{
    const auto plan = parseLaunchPlan(kernel.launchPlan);
    REQUIRE(plan);
    auto resolved = resolveLaunchPlan(*plan, op, op.shapeSets[1], parseKernelSignatures(kernel.source));
    REQUIRE_MESSAGE(resolved, (resolved ? "" : resolved.error().message));
    return *resolved;
}
} // namespace

TEST_CASE("is registered after the CUDA-core gemm template")
{
    const Op &op = gemmTestOp("matmul_square");
    const KernelTemplate *found = findKernelTemplate("gemm-tensorcore");
    REQUIRE(found);
    CHECK(found->supports(op, recipeFor(op)));
    // A translation stays exact fp32: the first template that supports a gemm is the CUDA-core one.
    const auto &all = kernelTemplates();
    const auto first =
        std::find_if(all.begin(), all.end(), [&](const KernelTemplate *t) { return t->supports(op, recipeFor(op)); });
    REQUIRE(first != all.end());
    CHECK((*first)->name() == std::string("gemm"));
}

TEST_CASE("the defaults are valid, fp32-accurate and compile" * needsNvrtc())
{
    const auto ops = gemmTestOps();
    for (const auto &row : opAndArchRows(ops)) {
        SUBCASE(row.name.c_str())
        {
            const Op &op = ops[row.op];
            const Params defaults = kTemplate.defaults(op, recipeFor(op));
            CHECK(kTemplate.check(op, recipeFor(op), defaults) == std::string());
            CHECK(defaults.at("products") == 3);
            const std::string problem = verifyCandidate(kTemplate, op, defaults, row.arch);
            CHECK_MESSAGE(problem.empty(), problem);
        }
    }
}

TEST_CASE("the default tile fills the GPU without overhanging the output")
{
    const auto tileOf = [](const Op &op) {
        const Params params = kTemplate.defaults(op, recipeFor(op));
        return std::to_string(params.at("bm")) + " x " + std::to_string(params.at("bn")) + ", "
               + std::to_string(params.at("warpsM")) + " x " + std::to_string(params.at("warpsN")) + " warps";
    };
    Op large = gemmTestOp("matmul_square");
    large.shapeSets.front() = {{"M", 2048}, {"N", 2048}, {"K", 2048}};
    CHECK(tileOf(large) == "128 x 128, 2 x 4 warps");                          // 256 tiles
    CHECK(tileOf(gemmTestOp("linear_bias_relu")) == "64 x 128, 1 x 4 warps");  // 512 x 4096: 256 tiles
    CHECK(tileOf(gemmTestOp("matmul_square")) == "64 x 64, 2 x 2 warps");      // 1024 x 1024: 256 tiles
    CHECK(tileOf(gemmTestOp("matmul_tall_skinny")) == "64 x 64, 2 x 2 warps"); // N = 64: no 128-wide tile
    Op small = gemmTestOp("matmul_square");
    small.shapeSets.front() = {{"M", 300}, {"N", 200}, {"K", 100}};
    CHECK(tileOf(small) == "32 x 64, 1 x 2 warps"); // never enough tiles: the smallest
}

TEST_CASE("random combinations compile and resolve" * needsNvrtc())
{
    int compiled = 0, plainTf32 = 0, deepPipeline = 0, wideSlice = 0;
    unsigned seed = 77;
    for (const auto &op : gemmTestOps()) {
        const auto samples = sampleValid(kTemplate, op, seed++, 8);
        CHECK(samples.size() == std::size_t(8));
        for (const auto &params : samples) {
            const std::string arch = compiled % 2 ? "sm_90" : "sm_80";
            const std::string problem = verifyCandidate(kTemplate, op, params, arch);
            CHECK_MESSAGE(problem.empty(), problem);
            ++compiled;
            plainTf32 += params.at("products") == 1;
            deepPipeline += params.at("stages") > 2;
            wideSlice += params.at("bk") == 32;
        }
    }
    CHECK(compiled == 32);
    CHECK((plainTf32 > 0 && deepPipeline > 0 && wideSlice > 0));
}

TEST_CASE("the plan covers the output with one block per tile and sizes shared memory")
{
    const Op &op = gemmTestOp("linear_bias_relu");
    const Params params =
        withChanges(kTemplate.defaults(op, recipeFor(op)), "bm=128,bn=64,bk=16,warpsM=4,warpsN=2,stages=3");
    REQUIRE(kTemplate.check(op, recipeFor(op), params) == std::string());
    const GeneratedKernel kernel = kTemplate.generate(op, recipeFor(op), params);
    const ResolvedPlan resolved = resolvedOnOddShapes(op, kernel);
    REQUIRE(resolved.steps.size() == std::size_t(1));
    const auto &step = std::get<ResolvedKernelStep>(resolved.steps.front());
    CHECK(step.kernel == std::string("gemm_tc_kernel"));
    // One block per 128 x 64 tile in a 1-D grid (the kernel walks the tiles in groups of row tiles).
    CHECK(step.grid[0] == std::int64_t(((37 + 127) / 128) * ((130 + 63) / 64)));
    CHECK(step.grid[1] == std::int64_t(1));
    CHECK(step.block[0] == std::int64_t(256));
    // Three stages of a [128][24] slice of a and a [64][24] slice of the transposed b (k contiguous, padded by 8).
    CHECK(step.sharedBytes == std::int64_t(4 * 3 * (128 * 24 + 64 * 24)));
    CHECK(kernel.source.find("reinterpret_cast<const float2 *>(bs + col * B_LD + kk + t2)") != std::string::npos);
    const GeneratedKernel plain =
        kTemplate.generate(gemmTestOp("matmul_square"), recipeFor(gemmTestOp("matmul_square")), params);
    CHECK(plain.source.find("bs[(kk + t2) * B_LD + col]") != std::string::npos); // b is [k, n]: read down a column
}

TEST_CASE("the source states its parameters and its precision")
{
    const Op &op = gemmTestOp("matmul_scale_residual_clamp");
    const OpRecipe recipe = recipeFor(op);
    const Params params = kTemplate.defaults(op, recipe);
    const std::string source = kTemplate.generate(op, recipe, params).source;
    const std::string unstated = unstatedParameters(kTemplate, op, params, source);
    CHECK_MESSAGE(unstated.empty(), unstated);
    CHECK(source.find("3xTF32") != std::string::npos);
    CHECK(source.find("splitTf32") != std::string::npos);
    CHECK(source.find("fminf(fmaxf(acc * 2.0f + res, -1.0f), 1.0f)") != std::string::npos);
    const std::string plain = kTemplate.generate(op, recipe, with(params, {{"products", 1}})).source;
    CHECK(plain.find("Precision: plain TF32") != std::string::npos);
    CHECK(plain.find("splitTf32") == std::string::npos);
}

TEST_CASE("rejects invalid combinations")
{
    const struct
    {
        const char *name;
        std::string changes;
        std::string reason;
    } rows[] = {
        {"warp tile below an mma tile", "bm=32,warpsM=4",
         "a warp's tile of (32/4) x (64/2) is not made of 16 x 8 mma tiles"},
        {"too many registers for 3xTF32", "bm=128,bn=128,warpsM=2,warpsN=2",
         "a warp's tile of 64 x 64 with 3xTF32 needs about 216 registers a thread for its sums and operands, more "
         "than 150 leave room for without spilling"},
        {"too many registers for TF32", "bm=256,bn=128,warpsM=2,warpsN=2,products=1",
         "a warp's tile of 128 x 64 with TF32 needs about 276 registers a thread for its sums and operands, more "
         "than 150 leave room for without spilling"},
        {"too many warps", "bm=128,bn=128,warpsM=4,warpsN=4", "4 x 4 warps exceed 8 per block"},
        {"shared memory", "bm=256,bn=128,bk=64,warpsM=4,warpsN=2,stages=4,products=1",
         "430080 bytes of shared memory (4 stages) exceed 232448"},
        {"value not allowed", "products=2",
         "TF32 products per multiply (3: fp32-accurate 3xTF32, 1: plain TF32) 2 is "
         "not one of the allowed values"},
        {"missing", "-stages", "missing parameter stages"},
    };
    const Op &op = gemmTestOp("matmul_square");
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            const Params params = withChanges(kTemplate.defaults(op, recipeFor(op)), row.changes);
            CHECK(kTemplate.check(op, recipeFor(op), params) == row.reason);
        }
    }
}

TEST_CASE("rejects ops the gemm templates cannot handle, naming itself")
{
    Op op = gemmTestOp("matmul_square");
    op.inputs[0].dtype = "float16";
    CHECK(kTemplate.check(op, recipeFor(op), kTemplate.defaults(op, recipeFor(op)))
          == std::string("input a is float16: the gemm-tensorcore template handles float32"));
    Op clash = gemmTestOp("matmul_square");
    clash.inputs[0].name = "lane";
    CHECK(kTemplate.check(clash, recipeFor(clash), kTemplate.defaults(clash, recipeFor(clash)))
          == std::string("tensor name 'lane' clashes with a name of the generated code"));
    const GeneratedKernel kernel = kTemplate.generate(op, recipeFor(op), kTemplate.defaults(op, recipeFor(op)));
    CHECK(kernel.source.rfind("#error", 0) == 0);
    CHECK(!parseLaunchPlan(kernel.launchPlan));
}

TEST_CASE("split-K: the defaults split a long k of few tiles, and only then")
{
    CHECK(gemm::defaultSplitK({256, 256, 524288, 1}, 128, 128, 32) == 64); // 4 tiles: 64 ranges of 8192
    CHECK(gemm::defaultSplitK({256, 256, 4096, 1}, 128, 128, 32) == 16);   // ranges of at least 8 slices
    CHECK(gemm::defaultSplitK({256, 256, 300, 1}, 128, 128, 32) == 1);     // k too short to split
    CHECK(gemm::defaultSplitK({2048, 2048, 65536, 1}, 128, 128, 32) == 1); // 256 tiles fill the GPU
    CHECK(gemm::defaultSplitK({256, 256, 65536, 16}, 128, 128, 32) == 4);  // a batch counts its tiles

    Op largeK = gemmTestOp("matmul_square");
    largeK.shapeSets = {{{"M", 256}, {"N", 256}, {"K", 524288}}, {{"M", 77}, {"N", 130}, {"K", 40001}}};
    const Params params = kTemplate.defaults(largeK, recipeFor(largeK));
    CHECK(params.at("splitK") == 64);
    CHECK(params.at("bm") == 128);
    CHECK(params.at("bn") == 128);
    CHECK(kTemplate.defaults(gemmTestOp("matmul_square"), recipeFor(gemmTestOp("matmul_square"))).at("splitK") == 1);
    Op narrow = largeK; // N = 64: a 128-wide tile would be half empty, so the default tile stays and splits
    narrow.shapeSets = {{{"M", 1024}, {"N", 64}, {"K", 1 << 20}}};
    const Params narrowParams = kTemplate.defaults(narrow, recipeFor(narrow));
    CHECK(narrowParams.at("bn") == 64);
    CHECK(narrowParams.at("splitK") > 1);
}

TEST_CASE("split-K: one block per tile and k range, a scratch copy of the output per range, then the reduction")
{
    Op op = gemmTestOp("linear_bias_relu");
    const Params params = withChanges(kTemplate.defaults(op, recipeFor(op)), "bm=64,bn=64,warpsM=2,warpsN=2,splitK=4");
    REQUIRE(kTemplate.check(op, recipeFor(op), params) == std::string());
    const GeneratedKernel kernel = kTemplate.generate(op, recipeFor(op), params);
    const ResolvedPlan resolved = resolvedOnOddShapes(op, kernel);
    REQUIRE(resolved.steps.size() == std::size_t(2));
    const auto &product = std::get<ResolvedKernelStep>(resolved.steps[0]);
    CHECK(product.kernel == std::string("gemm_tc_kernel"));
    CHECK(product.grid[0] == std::int64_t(((37 + 63) / 64) * ((130 + 63) / 64)));
    CHECK(product.grid[1] == std::int64_t(1));
    CHECK(product.grid[2] == std::int64_t(4));
    CHECK(product.args.back().intValue == std::int64_t(37 * 130)); // the stride between the copies
    const auto &reduce = std::get<ResolvedKernelStep>(resolved.steps[1]);
    CHECK(reduce.kernel == std::string("gemm_splitk_reduce"));
    CHECK(reduce.grid[0] == std::int64_t((37 * 130 + 255) / 256));
    REQUIRE(resolved.scratchBytes.size() == std::size_t(1));
    CHECK(resolved.scratchBytes.front().first == std::string("partial"));
    // The product writes raw sums into the copies; the bias and the ReLU come once, after the sum of the ranges.
    CHECK(kernel.source.find("y += (size_t)blockIdx.z * splitStride;") != std::string::npos);
    CHECK(kernel.source.find("sum += partial[(size_t)s * elements + idx];") != std::string::npos);
    CHECK(kernel.source.find("y[idx] = epilogue(sum + bias[n], m, n)") != std::string::npos);
    const GeneratedKernel whole = kTemplate.generate(op, recipeFor(op), withChanges(params, "splitK=1"));
    CHECK(whole.source.find("gemm_splitk_reduce") == std::string::npos);
    CHECK(whole.source.find("blockIdx.z") == std::string::npos);
}

TEST_CASE("split-K compiles and resolves on every layout and epilogue" * needsNvrtc())
{
    int compiled = 0;
    std::vector<Op> ops = gemmTestOps();
    for (const Op &op : gemmLayoutTestOps())
        ops.push_back(op);
    for (const Op &op : ops) {
        CAPTURE(op.name);
        for (const char *change : {"splitK=2", "splitK=16"}) {
            const Params params = withChanges(kTemplate.defaults(op, recipeFor(op)), change);
            if (!kTemplate.check(op, recipeFor(op), params).empty())
                continue;
            const std::string problem = verifyCandidate(kTemplate, op, params, compiled % 2 ? "sm_90" : "sm_80");
            CHECK_MESSAGE(problem.empty(), problem);
            ++compiled;
        }
    }
    CHECK(compiled == int(2 * ops.size()));
}
