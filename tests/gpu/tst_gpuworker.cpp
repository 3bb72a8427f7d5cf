// Hangs and faults through real `kx worker` processes: the pool kills or restarts the worker, and the next
// candidate is evaluated as if nothing happened.
#include "gputestsupport.h"

#include "core/eval/workerpool.h"
#include "core/ops/builtinops.h"

#include <doctest/doctest.h>

#include <iostream>

using namespace kx;
using namespace kx::test;

namespace {

[[maybe_unused]] const bool gpuPresent = skipWithoutGpu();

const std::string kPlan = elementwisePlan("relu", R"json([{"input": "x"}, {"output": "out"}, {"int": "N"}])json");

const char *const kRelu = R"(
extern "C" __global__ void relu(const float* __restrict__ x, float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = fmaxf(x[i], 0.0f);
}
)";

// Spins for as long as the input holds a number (always): only the pool's timeout ends it.
const char *const kHang = R"(
extern "C" __global__ void relu(const float* x, float* out, int n)
{
    volatile const float* v = x;
    while (v[0] == v[0]) {}
    out[0] = 0.0f;
}
)";

const char *const kIllegalAddress = R"(
extern "C" __global__ void relu(const float* x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float* wild = (float*)0x10;
    if (i < n)
        wild[i] = x[i];
    if (i < n)
        out[i] = x[i];
}
)";

Evaluation evaluateThrough(WorkerPool &pool, const char *source, double timeoutMs = 60000)
{
    EvalSettings settings = quickSettings();
    settings.timeoutMs = timeoutMs;
    auto request = makeRequest(*findBuiltInOp("relu"), source, kPlan, settings);
    auto result = pool.submit(std::move(request)).get();
    INFO("pool error: ", (result ? std::string() : result.error().message));
    REQUIRE(result.hasValue());
    return *result;
}

} // namespace

TEST_CASE("hangs and faults cost one worker, not the evaluation service")
{
    WorkerPoolOptions options;
    options.command = {std::string(KX_BINARY_DIR) + "/kx", "worker"};
    options.devices = {0};
    WorkerPool pool(options);
    const Status started = pool.start();
    INFO("start: ", (started.isOk() ? std::string() : started.error().message));
    REQUIRE(started.isOk());

    const auto first = evaluateThrough(pool, kRelu);
    INFO("first: ", first.message);
    CHECK(statusText(first.status) == statusText(EvalStatus::Correct));

    const auto hang = evaluateThrough(pool, kHang, 4000);
    CHECK(statusText(hang.status) == statusText(EvalStatus::Timeout));
    MESSAGE("hang: ", hang.message);

    const auto afterHang = evaluateThrough(pool, kRelu);
    INFO("after the hang: ", afterHang.message);
    CHECK(statusText(afterHang.status) == statusText(EvalStatus::Correct));

    const auto fault = evaluateThrough(pool, kIllegalAddress);
    CHECK(statusText(fault.status) == statusText(EvalStatus::Fault));
    MESSAGE("fault: ", fault.message);

    const auto afterFault = evaluateThrough(pool, kRelu);
    INFO("after the fault: ", afterFault.message);
    CHECK(statusText(afterFault.status) == statusText(EvalStatus::Correct));

    const auto workers = pool.workers();
    REQUIRE(workers.size() == 1);
    CHECK(workers.front().restarts >= 2);
    pool.stop();
}
