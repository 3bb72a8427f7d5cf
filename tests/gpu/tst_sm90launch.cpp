// Kernel steps for sm_90 on the GPU: tensor maps the harness encodes over the bound tensors (loads and stores by
// the copy engine on a matrix whose boxes reach past its edges) and launches in clusters (distributed shared
// memory). The kernels are tests/data/devicecode/tma-relu.cu and cluster-relu.cu (tst_devicecodecheck compiles them
// on machines without a GPU).
#include "gputestsupport.h"

#include "testfiles.h"

#if KX_HAVE_CUDA
#include "core/gpu/cudaerror.h"
#include "core/gpu/devicebuffer.h"
#include "core/gpu/tensormapencoder.h"
#endif

#include <doctest/doctest.h>

#include <string>

using namespace kx;
using namespace kx::test;

namespace {

[[maybe_unused]] const bool gpuPresent = skipWithoutGpu();

std::string kernelSource(const std::string &name)
{
    const std::string text = readFile(std::string(KX_TEST_DATA_DIR) + "/devicecode/" + name);
    REQUIRE_MESSAGE(!text.empty(), name);
    return text;
}

bool hopperOrLater()
{
    return std::stod(gpuEvaluator().describe().computeCapability) >= 9.0;
}

// ReLU over an [R, C] matrix: rows of 52 and 780 floats are whole 16 bytes, neither is a multiple of the 32-column
// box, and 37 and 1001 rows are no multiple of its 16 rows.
Op matrixRelu()
{
    Op op = builtIn("relu");
    op.inputs = {{"x", {"R", "C"}, "float32"}};
    op.outputs = {{"out", {"R", "C"}, "float32"}};
    op.shapeSets = {{{"R", 4096}, {"C", 4096}}, {{"R", 37}, {"C", 52}}, {{"R", 1001}, {"C", 780}}};
    op.bytesMovedExpr = "8 * R * C";
    op.flopsExpr = "R * C";
    return op;
}

std::string tmaPlan(const std::string &inputSwizzle)
{
    return R"js({"steps": [{"kernel": "tma_relu", "grid": ["ceil_div(C, 32)", "ceil_div(R, 16)"], "block": ["128"],
               "args": [{"tensorMap": "x", "box": ["32", "16"], "swizzle": ")js"
           + inputSwizzle + R"js("}, {"tensorMap": "out", "box": ["32", "16"]}, {"int": "R"}, {"int": "C"}]}]})js";
}

const char *const kClusterPlan = R"js({"steps": [{"kernel": "cluster_relu", "grid": ["2 * ceil_div(N, 512)"],
    "block": ["256"], "cluster": ["2"], "args": [{"input": "x"}, {"output": "out"}, {"int": "N"}]}]})js";

} // namespace

TEST_CASE("a kernel loads and stores tiles through the tensor maps of its plan")
{
    const auto outcome =
        gpuEvaluator().evaluate(makeRequest(matrixRelu(), kernelSource("tma-relu.cu"), tmaPlan("128B")));
    if (!hopperOrLater()) {
        CHECK(statusText(outcome.evaluation.status) == statusText(EvalStatus::PlanError));
        CHECK(outcome.evaluation.message.find("tensor maps need sm_90 or later") != std::string::npos);
        return;
    }
    // Correct on every shape set: out-of-bounds parts of the boxes arrived as zeros (the kernel poisons its tile
    // otherwise) and were not stored (in-bounds-writes).
    requireCorrect(outcome);
    CHECK(outcome.evaluation.correctness.shapeSets == 3);
}

TEST_CASE("the swizzle of the plan reaches the copy engine")
{
    if (!hopperOrLater())
        return;
    // The kernel reads its tile as 128B-swizzled: loaded without a swizzle, the columns are permuted.
    const auto outcome =
        gpuEvaluator().evaluate(makeRequest(matrixRelu(), kernelSource("tma-relu.cu"), tmaPlan("none")));
    INFO("message: ", outcome.evaluation.message);
    CHECK(statusText(outcome.evaluation.status) == statusText(EvalStatus::Incorrect));
    CHECK_FALSE(outcome.workerMustExit);
}

TEST_CASE("blocks of a cluster launch read each other's shared memory")
{
    const auto outcome =
        gpuEvaluator().evaluate(makeRequest(builtIn("relu"), kernelSource("cluster-relu.cu"), kClusterPlan));
    if (!hopperOrLater()) {
        CHECK(statusText(outcome.evaluation.status) == statusText(EvalStatus::PlanError));
        CHECK(outcome.evaluation.message.find("clusters need sm_90 or later") != std::string::npos);
        return;
    }
    requireCorrect(outcome);
}

#if KX_HAVE_CUDA
TEST_CASE("a tensor map the driver refuses is an error with the driver's reason, not a crash")
{
    if (!hopperOrLater())
        return;
    DeviceBuffer buffer(64 * 64 * 4);
    ResolvedTensorMap map;
    map.dims = {64, 64};
    map.strides = {256};
    map.box = {32, 512}; // the plan's check would refuse a box above 256; the driver does too
    try {
        (void)encodeTensorMap(map, buffer.data(), "step 0 (k)");
        FAIL("the driver encoded a box of 512");
    } catch (const CudaFailure &failure) {
        const std::string message = failure.what();
        CHECK_MESSAGE(message.find("step 0 (k): encoding the tensor map (dims [64, 64], box [32, 512], float32, "
                                   "swizzle none): the driver refused it (CUDA_ERROR_INVALID_VALUE)")
                          != std::string::npos,
                      message);
    }
}
#endif
