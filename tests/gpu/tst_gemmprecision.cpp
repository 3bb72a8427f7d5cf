// How exact the tensor-core GEMMs are: the fp32 CUDA-core kernel (FMA, the accuracy eager SGEMM has), 3xTF32
// and plain TF32 are each compared with the same product computed in float64 (a TorchScript reference),
// over K from 1024 to 16384. The bound checked: 3xTF32's largest error is at most twice the fp32 FMA
// kernel's, on the same inputs (every trial's distribution, the wide one included); plain TF32's is at least
// eight times 3xTF32's, which shows the comparison can tell the two apart. Both tensor-core templates are checked
// (gemm-wgmma on sm_90a only). Needs a GPU and a Python with PyTorch.
#include "gputestsupport.h"
#include "referencemodules.h"

#include "core/codegen/kerneltemplate.h"
#include "core/codegen/oprecipe.h"
#include "core/ops/builtinops.h"

#include <doctest/doctest.h>

#include <cstdio>

using namespace kx;
using namespace kx::test;

namespace {

[[maybe_unused]] const bool gpuPresent = skipWithoutGpu();
[[maybe_unused]] const bool modulesMade = !referenceModules().empty();

// The catalog's matmul checked against float64 at [256, K] x [K, 256], with a tolerance no kernel can miss:
// the errors are what this suite reads.
Op matmulAgainstFp64(std::int64_t k)
{
    Op op = *findBuiltInOp("matmul");
    op.name = "kb/test/matmul_fp64";
    op.sourceKind = SourceKind::KernelBench;
    op.referenceModule = referenceModule("matmul_fp64");
    op.shapeSets = {{{"M", 256}, {"N", 256}, {"K", k}}};
    op.policy.atol = 1e30;
    op.policy.rtol = 1e30;
    return op;
}

// The largest absolute error of a template's kernel with these changes to its defaults.
double maxError(const Op &op, const char *templateName, const Params &changes)
{
    const KernelTemplate *kernelTemplate = findKernelTemplate(templateName);
    REQUIRE(kernelTemplate);
    const auto recipe = recipeOf(op);
    REQUIRE(recipe);
    Params params = kernelTemplate->defaults(op, *recipe);
    for (const auto &[name, value] : changes)
        params[name] = value;
    REQUIRE(kernelTemplate->check(op, *recipe, params) == std::string());
    const auto kernel = kernelTemplate->generate(op, *recipe, params);
    const auto outcome = gpuEvaluator().evaluate(makeRequest(op, kernel.source, kernel.launchPlan));
    REQUIRE_MESSAGE(statusText(outcome.evaluation.status) == "correct", outcome.evaluation.message);
    return outcome.evaluation.correctness.maxAbsError;
}

} // namespace

TEST_CASE("3xTF32 is as exact as fp32 FMA against float64, plain TF32 is not")
{
    for (const std::int64_t k : {1024, 4096, 16384}) {
        CAPTURE(k);
        const Op op = matmulAgainstFp64(k);
        const double fma = maxError(op, "gemm", {});
        const double split = maxError(op, "gemm-tensorcore", {{"products", 3}});
        const double plain = maxError(op, "gemm-tensorcore", {{"products", 1}});
        std::printf("K = %5lld: largest error against float64: fp32 FMA %.3g, 3xTF32 %.3g, TF32 %.3g\n",
                    static_cast<long long>(k), fma, split, plain);
        CHECK(fma > 0);
        CHECK(split <= 2 * fma);
        CHECK(plain >= 8 * split);
    }
}

// The same bound for Hopper's wgmma template, whose 3xTF32 rounds its sums to nearest once per 32 values of k
// (gemm-tensorcore: once per 8).
TEST_CASE("wgmma's 3xTF32 is as exact as fp32 FMA against float64, its plain TF32 is not")
{
    if (gpuArch() != "sm_90a") {
        std::printf("gemm-wgmma needs sm_90a: skipped on %s\n", gpuArch().c_str());
        return;
    }
    for (const std::int64_t k : {1024, 4096, 16384}) {
        CAPTURE(k);
        const Op op = matmulAgainstFp64(k);
        const double fma = maxError(op, "gemm", {});
        const double split = maxError(op, "gemm-wgmma", {{"products", 3}});
        const double plain = maxError(op, "gemm-wgmma", {{"products", 1}});
        // Fed by the copy engine: 3xTF32 from the same copies; plain TF32 reads a in place, so the tensor cores
        // drop its low mantissa bits instead of rounding them (at most about twice the rounded copy's error).
        const double tmaSplit = maxError(op, "gemm-wgmma", {{"products", 3}, {"loader", 1}});
        const double tmaPlain = maxError(op, "gemm-wgmma", {{"products", 1}, {"loader", 1}});
        std::printf("K = %5lld: largest error against float64: fp32 FMA %.3g, wgmma 3xTF32 %.3g, wgmma TF32 %.3g; "
                    "with TMA: 3xTF32 %.3g, TF32 %.3g\n",
                    static_cast<long long>(k), fma, split, plain, tmaSplit, tmaPlain);
        CHECK(split <= 2 * fma);
        CHECK(plain >= 8 * split);
        CHECK(tmaSplit <= 2 * fma);
        CHECK(tmaPlain >= 8 * tmaSplit);
        CHECK(tmaPlain <= 4 * plain);
    }
}

// The TMA loader on every catalog gemm it takes, odd shapes included (rows, columns and k past the last box arrive
// as zeros), torch.bmm among them (the batch the maps' third coordinate, each matrix's copy padded on its own):
// 3xTF32 verifies under the fp32 policy, plain TF32 (operands read in place where they are k-contiguous) under tf32.
TEST_CASE("wgmma fed by the copy engine verifies on the catalog's gemms")
{
    if (gpuArch() != "sm_90a") {
        std::printf("gemm-wgmma needs sm_90a: skipped on %s\n", gpuArch().c_str());
        return;
    }
    const KernelTemplate *wgmma = findKernelTemplate("gemm-wgmma");
    REQUIRE(wgmma);
    const std::vector<std::pair<Precision, Params>> variants{
        {Precision::Fp32, {{"loader", 1}, {"products", 3}}},
        {Precision::Fp32, {{"loader", 1}, {"products", 3}, {"bm", 64}, {"bn", 64}, {"stages", 6}, {"groupM", 1}}},
        {Precision::Tf32, {{"loader", 1}, {"products", 1}, {"bm", 128}, {"bn", 256}, {"stages", 4}}},
        {Precision::Tf32, {{"loader", 1}, {"products", 1}, {"bm", 192}, {"bn", 128}, {"stages", 3}}},
        {Precision::Tf32, {{"loader", 1}, {"products", 1}, {"bm", 64}, {"bn", 128}, {"stages", 2}}},
    };
    int verified = 0, batched = 0;
    for (const auto &op : builtInOps()) {
        const auto recipe = recipeOf(op);
        if (!recipe || !wgmma->supports(op, *recipe)
            || !wgmma->check(op, *recipe, wgmma->defaults(op, *recipe)).empty())
            continue;
        batched += isBatched(*recipe);
        for (const auto &[precision, changes] : variants) {
            Params params = wgmma->defaults(op, *recipe);
            for (const auto &[name, value] : changes)
                params[name] = value;
            CAPTURE(op.name);
            CAPTURE(toJson(Genome{"gemm-wgmma", params}));
            REQUIRE(wgmma->check(op, *recipe, params) == std::string());
            auto settings = quickSettings();
            settings.precision = precision;
            const auto kernel = wgmma->generate(op, *recipe, params);
            const auto outcome = gpuEvaluator().evaluate(makeRequest(op, kernel.source, kernel.launchPlan, settings));
            const auto &evaluation = outcome.evaluation;
            std::printf("%-28s %-5s %-70s %-10s %8.4f ms vs %8.4f ms eager  %s\n", op.name.c_str(), toString(precision),
                        toJson(Genome{"gemm-wgmma", params}).c_str(), statusText(evaluation.status).c_str(),
                        evaluation.timing.medianMs, evaluation.baseline.medianMs, evaluation.message.c_str());
            CHECK_MESSAGE(statusText(evaluation.status) == "correct", evaluation.message);
            CHECK_FALSE(outcome.workerMustExit);
            verified += evaluation.status == EvalStatus::Correct;
        }
    }
    // Seven catalog gemms: matmul, nn.Linear with b [n, k], a residual, a tall one, a transposed a, folded rows
    // and torch.bmm.
    CHECK(verified >= 7 * 5);
    CHECK(batched >= 1);
}
