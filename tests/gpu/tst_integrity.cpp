// Kernels that cheat the evaluation, each built to pass the checks the harness had before its check was added,
// and honest kernels of unusual structure that must still pass. Runs the GPU evaluator directly.
#include "gputestsupport.h"

#include "core/ops/builtinops.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

using namespace kx;
using namespace kx::test;

namespace {

[[maybe_unused]] const bool gpuPresent = skipWithoutGpu();

const std::string kReluArgs = R"json([{"input": "x"}, {"output": "out"}, {"int": "N"}])json";

EvaluateOutcome evaluateRelu(const std::string &source, const std::string &plan = elementwisePlan("relu", kReluArgs))
{
    return gpuEvaluator().evaluate(makeRequest(builtIn("relu"), source, plan));
}

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("a kernel that is right only on random-looking data fails on structured inputs")
{
    // Looks at its first 16 inputs: ascending, all equal or all whole numbers means "not a random test" -> zeros.
    const auto outcome = evaluateRelu(R"(
extern "C" __global__ void relu(const float* x, float* out, int n)
{
    bool ascending = true, constant = true, whole = true;
    for (int k = 0; k < 16; ++k) {
        if (k > 0) { ascending = ascending && x[k - 1] <= x[k]; constant = constant && x[k] == x[0]; }
        whole = whole && x[k] == rintf(x[k]);
    }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = (ascending || constant || whole) ? 0.0f : fmaxf(x[i], 0.0f);
}
)");
    const auto &e = outcome.evaluation;
    MESSAGE(e.message);
    CHECK(statusText(e.status) == statusText(EvalStatus::Incorrect));
    const auto &failure = e.correctness.failure;
    CHECK((contains(failure, "constant inputs") || contains(failure, "integer-valued inputs")
           || contains(failure, "sorted inputs") || contains(failure, "ramp inputs")));
}

TEST_CASE("a kernel that replays its last answer once the checks seem over fails on rotating timing inputs")
{
    // Computes honestly for 30 launches (the trials take 23), then copies the answer it stashed last time.
    const auto outcome = evaluateRelu(R"(
__device__ float stash[1 << 26];
__device__ unsigned int calls;
extern "C" __global__ void relu(const float* x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const bool fits = n <= (1 << 26);
    if (calls >= 30 && fits) {
        out[i] = stash[i];
        return;
    }
    const float v = fmaxf(x[i], 0.0f);
    out[i] = v;
    if (fits)
        stash[i] = v;
}
extern "C" __global__ void count()
{
    calls += 1;
}
)",
                                      R"json({"steps": [
        {"kernel": "relu", "grid": ["ceil_div(N, 256)"], "block": ["256"], "args": [{"input": "x"}, {"output": "out"}, {"int": "N"}]},
        {"kernel": "count", "grid": ["1"], "block": ["1"], "args": []}]})json");
    const auto &e = outcome.evaluation;
    MESSAGE(e.message);
    CHECK(statusText(e.status) == statusText(EvalStatus::Incorrect));
    CHECK(contains(e.correctness.failure, "timed runs"));
    CHECK(contains(e.correctness.failure, "input set"));
}

TEST_CASE("a kernel that rounds to 14 bits inside the tolerance is flagged reduced-precision")
{
    // relu with the lowest 9 mantissa bits cleared: at most 2^-14 relative error, inside rtol 1e-4.
    const auto outcome = evaluateRelu(R"(
extern "C" __global__ void relu(const float* x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = __uint_as_float(__float_as_uint(fmaxf(x[i], 0.0f)) & 0xFFFFFE00u);
}
)");
    requireCorrect(outcome);
    const auto &e = outcome.evaluation;
    REQUIRE(e.correctness.precisionAudit);
    const auto &audit = *e.correctness.precisionAudit;
    MESSAGE("candidate p99 ", audit.candidate.p99RelError, ", fp32 reference p99 ", audit.fp32Reference.p99RelError,
            " over ", audit.candidate.samples, " samples");
    CHECK(audit.unavailable.empty());
    CHECK(hasFlag(e, "reduced-precision"));
}

TEST_CASE("honest kernels of unusual structure pass every new check without flags against them")
{
    SUBCASE("grid-stride relu, a quarter of the blocks")
    {
        const auto outcome =
            evaluateRelu(R"(
extern "C" __global__ void relu(const float* x, float* out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = fmaxf(x[i], 0.0f);
}
)",
                         R"json({"steps": [{"kernel": "relu", "grid": ["ceil_div(N, 1024)"], "block": ["256"],
            "args": [{"input": "x"}, {"output": "out"}, {"int": "N"}]}]})json");
        requireCorrect(outcome);
        const auto &e = outcome.evaluation;
        MESSAGE(e.message);
        CHECK(e.correctness.trials == quickSettings().trials + 1);
        CHECK(e.correctness.inputs.size() == std::size_t(e.correctness.trials));
        CHECK(e.correctness.timingInputSets == 3);
        CHECK_FALSE(hasFlag(e, "reduced-precision"));
        REQUIRE(e.correctness.precisionAudit);
        CHECK(e.correctness.precisionAudit->candidate.p99RelError == 0); // relu is exact
        for (const auto &inputs : e.correctness.inputs)
            MESSAGE("inputs: ", inputs);
    }
    SUBCASE("row sums by atomics into a zeroed output, two launches")
    {
        const char *source = R"(
extern "C" __global__ void zero(float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 0.0f;
}
extern "C" __global__ void row_sum(const float* x, float* out, int n, int d)
{
    const int row = blockIdx.y;
    float sum = 0.0f;
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < d; j += gridDim.x * blockDim.x)
        sum += x[(long long)row * d + j];
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(&out[row], sum);
}
)";
        const auto plan = R"json({"steps": [
            {"kernel": "zero", "grid": ["ceil_div(N, 256)"], "block": ["256"], "args": [{"output": "out"}, {"int": "N"}]},
            {"kernel": "row_sum", "grid": ["4", "N"], "block": ["256"],
             "args": [{"input": "x"}, {"output": "out"}, {"int": "N"}, {"int": "D"}]}]})json";
        const auto outcome = gpuEvaluator().evaluate(makeRequest(builtIn("row_sum"), source, plan));
        requireCorrect(outcome);
        const auto &e = outcome.evaluation;
        MESSAGE(e.message);
        CHECK_FALSE(hasFlag(e, "reduced-precision"));
        for (const auto &flag : e.flags)
            MESSAGE("flag ", flag.kind, ": ", flag.evidence);
    }
}

// Last: when the search runs into unmapped memory the context is lost, and this process's evaluator with it.
TEST_CASE("a kernel that searches memory for the reference's answer finds nothing to copy")
{
    // Computes the first 8 outputs itself, then looks for them near its output buffer (outward, 256-byte steps,
    // up to twice the output's size either way), and copies the whole answer from where it found them.
    const char *source = R"(
__device__ long long found;
extern "C" __global__ void find(const float* x, float* out, int n)
{
    __shared__ float want[8];
    __shared__ int hit;
    if (threadIdx.x < 8)
        want[threadIdx.x] = fmaxf(x[threadIdx.x], 0.0f);
    if (threadIdx.x == 0) { hit = 0; found = 0; }
    __syncthreads();
    const long long stepFloats = 64;
    const long long limit = 2LL * n / stepFloats + 1;
    for (long long base = 1; base <= limit; base += blockDim.x / 2) {
        const long long step = base + threadIdx.x / 2;
        const long long offset = (threadIdx.x & 1 ? -1 : 1) * step * stepFloats;
        bool match = step <= limit;
        for (int k = 0; k < 8 && match; ++k)
            match = out[offset + k] == want[k];
        if (match)
            atomicCAS((unsigned long long*)&found, 0ull, (unsigned long long)offset);
        __syncthreads();
        if (threadIdx.x == 0 && found != 0)
            hit = 1;
        __syncthreads();
        if (hit)
            return;
    }
}
extern "C" __global__ void copy(float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = found != 0 ? out[found + i] : 0.0f;
}
)";
    const auto plan = R"json({"steps": [
        {"kernel": "find", "grid": ["1"], "block": ["1024"], "args": [{"input": "x"}, {"output": "out"}, {"int": "N"}]},
        {"kernel": "copy", "grid": ["ceil_div(N, 256)"], "block": ["256"], "args": [{"output": "out"}, {"int": "N"}]}]})json";
    const auto outcome = evaluateRelu(source, plan);
    const auto &e = outcome.evaluation;
    MESSAGE(statusText(e.status), ": ", e.message);
    CHECK(statusText(e.status) != statusText(EvalStatus::Correct));
}
