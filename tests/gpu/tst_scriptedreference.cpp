// Imported ops on the GPU: candidates checked and timed against the op's own TorchScript module.
#include "gputestsupport.h"
#include "referencemodules.h"

#include "core/gpu/scriptedreference.h"

#include <doctest/doctest.h>

using namespace kx;
using namespace kx::test;

namespace {

[[maybe_unused]] const bool gpuPresent = skipWithoutGpu();
[[maybe_unused]] const bool modulesMade = !referenceModules().empty();

// x * weight + bias elementwise, the weight and bias being the original model's parameters.
Op scaleShiftOp(const std::string &module)
{
    Op op;
    op.name = "kb/test/scale_shift";
    op.sourceKind = SourceKind::KernelBench;
    op.description = "x * weight + bias";
    op.referenceSource =
        "class Model(nn.Module):\n    def forward(self, x):\n        return x * self.weight + self.bias\n";
    op.inputs = {{"x", {"N"}}, {"weight", {"N"}}, {"bias", {"N"}}};
    op.outputs = {{"out", {"N"}}};
    op.shapeSets = {{{"N", 1 << 22}}, {{"N", 99991}}};
    op.bytesMovedExpr = "16 * N";
    op.flopsExpr = "2 * N";
    op.referenceModule = module;
    return op;
}

const std::string kPlan = elementwisePlan(
    "scale_shift",
    R"json([{"input": "x"}, {"input": "weight"}, {"input": "bias"}, {"output": "out"}, {"int": "N"}])json");

std::string kernel(const char *expression)
{
    return std::string(R"(
extern "C" __global__ void scale_shift(const float* __restrict__ x, const float* __restrict__ weight,
                                       const float* __restrict__ bias, float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = )")
           + expression + R"(;
}
)";
}

const std::string kCorrect = kernel("__fadd_rn(__fmul_rn(x[i], weight[i]), bias[i])");
const std::string kWrong = kernel("__fsub_rn(__fmul_rn(x[i], weight[i]), bias[i])");

EvaluateOutcome evaluate(const Op &op, const std::string &source)
{
    return gpuEvaluator().evaluate(makeRequest(op, source, kPlan));
}

void requireReferenceError(const EvaluateOutcome &outcome, const std::string &expected)
{
    const Evaluation &e = outcome.evaluation;
    INFO("message: ", e.message);
    CHECK(statusText(e.status) == statusText(EvalStatus::Crashed));
    CHECK(e.message.find(expected) != std::string::npos);
    CHECK(e.message.find("kb/test/scale_shift") != std::string::npos);
    CHECK(e.samplesMs.empty());
    CHECK_FALSE(outcome.workerMustExit);
}

} // namespace

TEST_CASE("a correct candidate of an imported op matches its TorchScript reference and is timed against it")
{
    const auto outcome = evaluate(scaleShiftOp(referenceModule("scale_shift")), kCorrect);
    requireCorrect(outcome);
    const Evaluation &e = outcome.evaluation;
    CHECK(e.correctness.trials == quickSettings().trials + 1); // and the special-values trial
    CHECK(e.correctness.shapeSets == 2);
    CHECK(e.correctness.mismatches == 0);
    CHECK(e.correctness.maxAbsError <= 1e-5);
    CHECK(e.samplesMs.size() >= 10);
    const auto *eager = findBaseline(e.baselines, BaselineKind::Eager);
    REQUIRE(eager);
    CHECK(eager->usable());
    CHECK(eager->samplesMs.size() == e.samplesMs.size());
    CHECK(e.baseline.medianMs > 0);
    CHECK(e.speedup > 0);
}

TEST_CASE("a wrong candidate of an imported op is Incorrect")
{
    const auto outcome = evaluate(scaleShiftOp(referenceModule("scale_shift")), kWrong);
    const Evaluation &e = outcome.evaluation;
    INFO("message: ", e.message);
    CHECK(statusText(e.status) == statusText(EvalStatus::Incorrect));
    CHECK(e.correctness.mismatches > 0);
    CHECK(e.correctness.failure.find("out") != std::string::npos);
    CHECK(e.speedup == 0);
    CHECK_FALSE(outcome.workerMustExit);
}

TEST_CASE("a broken reference module is a reference error, and the evaluator goes on")
{
    requireReferenceError(evaluate(scaleShiftOp("%%% not base64 %%%"), kCorrect), "is not valid base64");
    requireReferenceError(evaluate(scaleShiftOp("aGVsbG8sIHdvcmxkIQ=="), kCorrect),
                          "not a loadable TorchScript archive");
    // The module loads but its forward raises.
    requireReferenceError(evaluate(scaleShiftOp(referenceModule("raises")), kCorrect), "reference exploded on purpose");
    // A module that takes fewer inputs than the op has.
    requireReferenceError(evaluate(scaleShiftOp(referenceModule("relu")), kCorrect), "failed");

    requireCorrect(evaluate(scaleShiftOp(referenceModule("scale_shift")), kCorrect));
}

TEST_CASE("an op's module on the GPU is loaded once")
{
    const Op op = scaleShiftOp(referenceModule("scale_shift"));
    requireCorrect(evaluate(op, kCorrect));
    Op renamed = op;
    renamed.name = "kb/test/scale_shift_again";
    const auto loaded = ScriptedReference::loadedModuleCount();
    requireCorrect(evaluate(renamed, kCorrect));
    CHECK(ScriptedReference::loadedModuleCount() == loaded);
}

TEST_CASE("an honest kernel is not rejected by a trial on which the reference itself overflows")
{
    // exp(x) * 0 is NaN where exp overflows (x > 88.7), which wide and mixed-magnitude inputs reach; the kernel
    // writes the zeros the expression means. Those trials' inputs are shrunk until the reference is finite.
    Op op;
    op.name = "kb/test/exp_times_zero";
    op.sourceKind = SourceKind::KernelBench;
    op.description = "torch.exp(x) * 0";
    op.referenceSource = "torch.exp(x) * 0.0";
    op.inputs = {{"x", {"N"}}};
    op.outputs = {{"out", {"N"}}};
    op.shapeSets = {{{"N", 1 << 20}}, {{"N", 4099}}};
    op.bytesMovedExpr = "8 * N";
    op.flopsExpr = "N";
    op.referenceModule = referenceModule("exp_times_zero");
    const auto outcome = gpuEvaluator().evaluate(
        makeRequest(op, R"(
extern "C" __global__ void exp_times_zero(const float* x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 0.0f;
}
)",
                    elementwisePlan("exp_times_zero", R"json([{"input": "x"}, {"output": "out"}, {"int": "N"}])json")));
    const auto &e = outcome.evaluation;
    INFO("message: ", e.message);
    REQUIRE(statusText(e.status) == statusText(EvalStatus::Correct));
    bool shrunk = false;
    for (const auto &inputs : e.correctness.inputs) {
        MESSAGE("inputs: ", inputs);
        shrunk = shrunk || inputs.find("the reference was not finite at full scale") != std::string::npos;
    }
    CHECK(shrunk);
}
