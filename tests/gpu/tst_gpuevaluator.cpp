// The GPU evaluator driven directly: real NVRTC cubins, real launches, LibTorch references on the GPU.
#include "gputestsupport.h"

#include "core/gpu/reference.h"
#include "core/gpu/tensorops.h"
#include "core/gpu/tensorview.h"
#include "core/ops/builtinops.h"

#if KX_HAVE_CUDA
#include "core/gpu/devicebuffer.h"
#endif

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

using namespace kx;
using namespace kx::test;

namespace {

[[maybe_unused]] const bool gpuPresent = skipWithoutGpu();

const std::string kReluPlan = elementwisePlan("relu", R"json([{"input": "x"}, {"output": "out"}, {"int": "N"}])json");

const char *const kRelu = R"(
extern "C" __global__ void relu(const float* __restrict__ x, float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = fmaxf(x[i], 0.0f);
}
)";

EvaluateOutcome evaluateRelu(const char *source, const std::string &plan = kReluPlan)
{
    return gpuEvaluator().evaluate(makeRequest(builtIn("relu"), source, plan));
}

} // namespace

TEST_CASE("describe reports the GPU and a measured bandwidth")
{
    const GpuInfo info = gpuEvaluator().describe();
    CHECK_FALSE(info.name.empty());
    CHECK_FALSE(info.uuid.empty());
    CHECK(info.smCount > 0);
    CHECK(info.l2Bytes > 0);
    CHECK(info.measuredBandwidthGBs > 10);
    CHECK(info.peakTflops > 0);
    CHECK_FALSE(info.torchVersion.empty());
    CHECK_FALSE(info.nvrtcVersion.empty());
    MESSAGE(info.name, ", cc ", info.computeCapability, ", ", info.smCount, " SMs, L2 ", info.l2Bytes, " B, driver ",
            info.driverVersion, ", runtime ", info.cudaRuntimeVersion, ", NVRTC ", info.nvrtcVersion, ", LibTorch ",
            info.torchVersion, ", copy bandwidth ", info.measuredBandwidthGBs, " GB/s, fp32 peak ", info.peakTflops,
            " TFLOP/s");
}

TEST_CASE("a correct relu passes every check and is timed against the reference")
{
    const auto outcome = evaluateRelu(kRelu);
    requireCorrect(outcome);
    const Evaluation &e = outcome.evaluation;
    CHECK(e.correctness.trials == quickSettings().trials + 1); // and the special-values trial
    CHECK(e.correctness.shapeSets == 2);
    CHECK(e.correctness.mismatches == 0);
    for (const char *check : {"inputs-unchanged", "in-bounds-writes", "matches-reference", "deterministic",
                              "input-sensitive", "timed-outputs"}) {
        CAPTURE(check);
        CHECK(std::find(e.correctness.checksPassed.begin(), e.correctness.checksPassed.end(), check)
              != e.correctness.checksPassed.end());
    }
    CHECK(e.samplesMs.size() >= 20);
    // Eager PyTorch is a measurement of its own, timed the same way (same number of runs within the budget).
    const auto *eager = findBaseline(e.baselines, BaselineKind::Eager);
    REQUIRE(eager);
    CHECK(eager->usable());
    CHECK(eager->method == baselinemethod::kLibTorchEager);
    CHECK(eager->samplesMs.size() == e.samplesMs.size());
    CHECK(eager->gpu.name == gpuEvaluator().describe().name);
    CHECK(e.baseline.medianMs == eager->timing.medianMs);
    CHECK(e.precision == Precision::Fp32);
    CHECK(findBaseline(e.baselines, BaselineKind::Inductor) == nullptr); // none was prepared
    CHECK(e.timing.medianMs > 0);
    CHECK(e.timing.wallMedianMs >= e.timing.minMs);
    CHECK(e.baseline.medianMs > 0);
    CHECK(e.speedup > 0);
    CHECK_FALSE(hasFlag(e, "impossible"));
    CHECK_FALSE(hasFlag(e, "input-insensitive"));
    CHECK(e.gpu.name == gpuEvaluator().describe().name);
    MESSAGE("relu: ", e.message);
}

TEST_CASE("eager is timed once per run and again after the evaluations the settings allow, with its drift")
{
    auto settings = quickSettings();
    settings.baselineEveryEvaluations = 2;
    settings.baselineEveryMinutes = 0;
    const auto evaluate = [&] {
        auto request = makeRequest(builtIn("relu"), kRelu, kReluPlan, settings);
        request.candidate.runId = 424242; // a run of its own: a fresh measurement
        const auto outcome = gpuEvaluator().evaluate(request);
        requireCorrect(outcome);
        const auto *eager = findBaseline(outcome.evaluation.baselines, BaselineKind::Eager);
        REQUIRE(eager);
        REQUIRE(eager->usable());
        return *eager;
    };
    const auto first = evaluate();
    const auto second = evaluate();
    const auto third = evaluate();
    CHECK(second.uid == first.uid);
    CHECK(third.uid != first.uid);
    CHECK(first.driftPercent == 0);
    CHECK(third.driftPercent == doctest::Approx((third.timing.medianMs / first.timing.medianMs - 1) * 100));
    MESSAGE("eager relu: ", first.timing.medianMs, " ms, again ", third.timing.medianMs, " ms (drift ",
            third.driftPercent, "%)");
}

TEST_CASE("under tf32 the eager baseline may use TF32 while candidates are still checked against fp32")
{
    auto settings = quickSettings();
    settings.precision = Precision::Tf32;
    auto request = makeRequest(builtIn("relu"), kRelu, kReluPlan, settings);
    const auto outcome = gpuEvaluator().evaluate(request);
    requireCorrect(outcome);
    CHECK(outcome.evaluation.precision == Precision::Tf32);
    const auto *eager = findBaseline(outcome.evaluation.baselines, BaselineKind::Eager);
    REQUIRE(eager);
    CHECK(eager->precision == Precision::Tf32);
    CHECK(outcome.evaluation.message.find("[tf32]") != std::string::npos);
}

TEST_CASE("correct kernels of the other built-in ops pass")
{
    SUBCASE("add")
    {
        const char *source = R"(
extern "C" __global__ void add(const float* a, const float* b, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a[i] + b[i];
}
)";
        const auto plan =
            elementwisePlan("add", R"json([{"input": "a"}, {"input": "b"}, {"output": "out"}, {"int": "N"}])json");
        const auto outcome = gpuEvaluator().evaluate(makeRequest(builtIn("add"), source, plan));
        requireCorrect(outcome);
        MESSAGE("add: ", outcome.evaluation.message);
    }
    SUBCASE("scale_bias")
    {
        const char *source = R"(
extern "C" __global__ void scale_bias(const float* x, const float* scale, const float* bias, float* out,
                                      int n, int d)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n * d)
        out[i] = x[i] * scale[i % d] + bias[i % d];
}
)";
        const auto plan = R"json({"steps": [{"kernel": "scale_bias", "grid": ["ceil_div(N * D, 256)"], "block": ["256"],
            "args": [{"input": "x"}, {"input": "scale"}, {"input": "bias"}, {"output": "out"},
                     {"int": "N"}, {"int": "D"}]}]})json";
        const auto outcome = gpuEvaluator().evaluate(makeRequest(builtIn("scale_bias"), source, plan));
        requireCorrect(outcome);
        MESSAGE("scale_bias: ", outcome.evaluation.message);
    }
    SUBCASE("row_sum")
    {
        const char *source = R"(
extern "C" __global__ void row_sum(const float* x, float* out, int n, int d)
{
    __shared__ float partial[256];
    const float* row = x + (long long)blockIdx.x * d;
    float sum = 0.0f;
    for (int j = threadIdx.x; j < d; j += blockDim.x)
        sum += row[j];
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride)
            partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = partial[0];
}
)";
        const auto plan = R"json({"steps": [{"kernel": "row_sum", "grid": ["N"], "block": ["256"],
            "args": [{"input": "x"}, {"output": "out"}, {"int": "N"}, {"int": "D"}]}]})json";
        const auto outcome = gpuEvaluator().evaluate(makeRequest(builtIn("row_sum"), source, plan));
        requireCorrect(outcome);
        MESSAGE("row_sum: ", outcome.evaluation.message);
    }
    SUBCASE("softmax")
    {
        const char *source = R"(
extern "C" __global__ void softmax(const float* x, float* out, int n, int d)
{
    __shared__ float scratch[256];
    const float* row = x + (long long)blockIdx.x * d;
    float* target = out + (long long)blockIdx.x * d;
    float m = -3.402823466e38f;
    for (int j = threadIdx.x; j < d; j += blockDim.x)
        m = fmaxf(m, row[j]);
    scratch[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s)
            scratch[threadIdx.x] = fmaxf(scratch[threadIdx.x], scratch[threadIdx.x + s]);
        __syncthreads();
    }
    m = scratch[0];
    __syncthreads();
    float sum = 0.0f;
    for (int j = threadIdx.x; j < d; j += blockDim.x)
        sum += expf(row[j] - m);
    scratch[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s)
            scratch[threadIdx.x] += scratch[threadIdx.x + s];
        __syncthreads();
    }
    sum = scratch[0];
    for (int j = threadIdx.x; j < d; j += blockDim.x)
        target[j] = expf(row[j] - m) / sum;
}
)";
        const auto plan = R"json({"steps": [{"kernel": "softmax", "grid": ["N"], "block": ["256"],
            "args": [{"input": "x"}, {"output": "out"}, {"int": "N"}, {"int": "D"}]}]})json";
        const auto outcome = gpuEvaluator().evaluate(makeRequest(builtIn("softmax"), source, plan));
        requireCorrect(outcome);
        MESSAGE("softmax: ", outcome.evaluation.message);
    }
}

TEST_CASE("a library step runs through ATen where the policy allows it")
{
    Op op = builtIn("relu");
    op.policy.allowLibrarySteps = true;
    op.policy.allowedLibraryOps = {"aten::relu"};
    const auto plan = R"json({"steps": [{"library": "aten::relu", "args": [{"input": "x"}, {"output": "out"}]}]})json";
    const auto outcome = gpuEvaluator().evaluate(makeRequest(op, kRelu, plan));
    requireCorrect(outcome);
}

TEST_CASE("broken kernels are caught with the right status")
{
    SUBCASE("never writes its output")
    {
        const auto outcome = evaluateRelu(R"(
extern "C" __global__ void relu(const float* x, float* out, int n) {}
)");
        CHECK(statusText(outcome.evaluation.status) == statusText(EvalStatus::Incorrect));
        CHECK(outcome.evaluation.correctness.failure.find("nan, expected") != std::string::npos);
        MESSAGE(outcome.evaluation.message);
    }
    SUBCASE("writes half of its output")
    {
        const auto outcome = evaluateRelu(R"(
extern "C" __global__ void relu(const float* x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 2)
        out[i] = fmaxf(x[i], 0.0f);
}
)");
        CHECK(statusText(outcome.evaluation.status) == statusText(EvalStatus::Incorrect));
        CHECK(outcome.evaluation.correctness.mismatches > 0);
        MESSAGE(outcome.evaluation.message);
    }
    SUBCASE("modifies its input")
    {
        const auto outcome = evaluateRelu(R"(
extern "C" __global__ void relu(float* x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = fmaxf(x[i], 0.0f);
        x[i] = out[i];
    }
}
)");
        CHECK(statusText(outcome.evaluation.status) == statusText(EvalStatus::Incorrect));
        CHECK(outcome.evaluation.correctness.failure.find("modified its input x") != std::string::npos);
        MESSAGE(outcome.evaluation.message);
    }
    SUBCASE("writes a constant")
    {
        const auto outcome = evaluateRelu(R"(
extern "C" __global__ void relu(const float* x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 0.5f;
}
)");
        CHECK(statusText(outcome.evaluation.status) == statusText(EvalStatus::Incorrect));
        CHECK(hasFlag(outcome.evaluation, "input-insensitive"));
        MESSAGE(outcome.evaluation.message);
    }
    SUBCASE("reads uninitialised scratch memory")
    {
        const auto plan =
            elementwisePlan("relu", R"json([{"input": "x"}, {"output": "out"}, {"scratch": "acc"}, {"int": "N"}])json",
                            R"json([{"name": "acc", "bytes": "4 * N"}])json");
        const auto outcome = evaluateRelu(R"(
extern "C" __global__ void relu(const float* x, float* out, float* acc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        acc[i] += fmaxf(x[i], 0.0f);
        out[i] = acc[i];
    }
}
)",
                                          plan);
        CHECK(statusText(outcome.evaluation.status) == statusText(EvalStatus::Incorrect));
        MESSAGE(outcome.evaluation.message);
    }
    SUBCASE("writes past the end of its output")
    {
        const auto outcome = evaluateRelu(R"(
extern "C" __global__ void relu(const float* x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i + 1] = fmaxf(x[i], 0.0f);
}
)");
        CHECK(statusText(outcome.evaluation.status) == statusText(EvalStatus::Incorrect));
        CHECK(outcome.evaluation.correctness.failure.find("past the end of output out") != std::string::npos);
        MESSAGE(outcome.evaluation.message);
    }
    SUBCASE("a plan naming a kernel the source lacks")
    {
        const auto outcome = evaluateRelu(
            kRelu, elementwisePlan("missing", R"json([{"input": "x"}, {"output": "out"}, {"int": "N"}])json"));
        CHECK(statusText(outcome.evaluation.status) == statusText(EvalStatus::PlanError));
        CHECK_FALSE(outcome.workerMustExit);
    }
}

TEST_CASE("a kernel that stops working after the checked runs is caught by the timed-output check")
{
    // Counts its launches in a module global and skips the work once the 23 checked runs are over
    // (two in each of the 11 trials, one in the special-values trial).
    const char *source = R"(
__device__ unsigned int calls;
extern "C" __global__ void relu(const float* x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (calls < 23 && i < n)
        out[i] = fmaxf(x[i], 0.0f);
}
extern "C" __global__ void count()
{
    calls += 1;
}
)";
    const auto plan = R"json({"steps": [
        {"kernel": "relu", "grid": ["ceil_div(N, 256)"], "block": ["256"], "args": [{"input": "x"}, {"output": "out"}, {"int": "N"}]},
        {"kernel": "count", "grid": ["1"], "block": ["1"], "args": []}]})json";
    const auto outcome = evaluateRelu(source, plan);
    CHECK(statusText(outcome.evaluation.status) == statusText(EvalStatus::Incorrect));
    CHECK(outcome.evaluation.correctness.failure.find("timed runs") != std::string::npos);
    CHECK(outcome.evaluation.correctness.trials == 12);
    MESSAGE(outcome.evaluation.message);
}

TEST_CASE("asking for more shared memory than exists is a launch error, and the worker carries on")
{
    const auto plan =
        elementwisePlan("relu", R"json([{"input": "x"}, {"output": "out"}, {"int": "N"}])json", "[]", "200 * 1024");
    const auto outcome = evaluateRelu(R"(
extern "C" __global__ void relu(const float* x, float* out, int n)
{
    __shared__ float fixed[12288];
    extern __shared__ float dynamic[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    fixed[threadIdx.x] = x[i < n ? i : 0];
    dynamic[threadIdx.x] = fixed[threadIdx.x];
    __syncthreads();
    if (i < n)
        out[i] = fmaxf(dynamic[threadIdx.x], 0.0f);
}
)",
                                      plan);
    CHECK(statusText(outcome.evaluation.status) == statusText(EvalStatus::LaunchError));
    CHECK_FALSE(outcome.workerMustExit);
    MESSAGE(outcome.evaluation.message);
    requireCorrect(evaluateRelu(kRelu));
}

TEST_CASE("a time under the roofline floor is flagged impossible")
{
    // The kernel is correct; the op claims a thousand times the real traffic, so the floor is far above the time.
    Op op = builtIn("relu");
    op.bytesMovedExpr = "1000 * 8 * N";
    const auto outcome = gpuEvaluator().evaluate(makeRequest(op, kRelu, kReluPlan));
    requireCorrect(outcome);
    REQUIRE(hasFlag(outcome.evaluation, "impossible"));
    for (const auto &flag : outcome.evaluation.flags) {
        if (flag.kind != "impossible")
            continue;
        const auto evidence = nlohmann::json::parse(flag.evidence);
        CHECK(evidence.at("floorMs").get<double>() > evidence.at("measuredMs").get<double>());
        CHECK(evidence.at("bytes").get<double>() == doctest::Approx(1000.0 * 8 * (1 << 26)));
        CHECK(evidence.at("bandwidthGBs").get<double>() > 0);
    }
}

TEST_CASE("a speedup above the threshold is flagged suspicious")
{
    EvalSettings settings = quickSettings();
    settings.suspiciousSpeedup = 1e-3;
    const auto outcome = gpuEvaluator().evaluate(makeRequest(builtIn("relu"), kRelu, kReluPlan, settings));
    requireCorrect(outcome);
    CHECK(hasFlag(outcome.evaluation, "suspicious"));
}

#if KX_HAVE_CUDA
TEST_CASE("every built-in op's reference runs on the GPU and matches its spec")
{
    for (const Op &op : builtInOps()) {
        CAPTURE(op.name);
        for (const ShapeSet &shapes : op.shapeSets) {
            std::vector<DeviceBuffer> buffers;
            std::vector<TensorView> inputs;
            std::vector<TensorView> outputs;
            buffers.reserve(op.inputs.size() + op.outputs.size());
            for (const auto &spec : op.inputs) {
                const auto layout = resolveLayout(spec, shapes);
                REQUIRE(layout.hasValue());
                buffers.emplace_back(layout->byteCount());
                inputs.push_back(layout->view(buffers.back().data(), 0));
                REQUIRE(TensorOps::fillRandom(inputs.back(), 1, Distribution::Wide).isOk());
            }
            for (const auto &spec : op.outputs) {
                const auto layout = resolveLayout(spec, shapes);
                REQUIRE(layout.hasValue());
                buffers.emplace_back(layout->byteCount());
                outputs.push_back(layout->view(buffers.back().data(), 0));
            }
            const auto ran = Reference::run(op.name, inputs, outputs);
            INFO((ran.isOk() ? std::string() : ran.error().message));
            CHECK(ran.isOk());
            // The reference is deterministic enough to compare with itself: a second run matches the first.
            std::vector<DeviceBuffer> again;
            for (const auto &out : outputs) {
                again.emplace_back(out.byteCount());
                auto view = out;
                view.data = again.back().data();
                REQUIRE(Reference::run(op.name, inputs, {view}).isOk());
                const auto same = TensorOps::compare(view, out, op.policy.atol, op.policy.rtol);
                REQUIRE(same.hasValue());
                CHECK(same->mismatches == 0);
            }
        }
    }
}
#endif
