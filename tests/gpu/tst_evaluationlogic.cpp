// The GPU evaluator's logic that needs no GPU: built-in ops, layouts, LibTorch references and comparisons on
// host tensors, the roofline floor and the timing flags.
#include "core/domain/domainjson.h"
#include "core/gpu/gpuarchitecture.h"
#include "core/gpu/precisionaudit.h"
#include "core/gpu/reference.h"
#include "core/gpu/tensorops.h"
#include "core/gpu/tensorview.h"
#include "core/gpu/timingflags.h"
#include "core/gpu/timingsets.h"
#include "core/ops/builtinops.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <set>
#include <vector>

using namespace kx;

namespace {

TensorView hostView(std::vector<float> &values)
{
    return TensorView{values.data(), {std::int64_t(values.size())}, DType::Float32, -1};
}

bool hasFlag(const std::vector<Flag> &flags, const std::string &kind)
{
    return std::any_of(flags.begin(), flags.end(), [&](const Flag &flag) { return flag.kind == kind; });
}

// An op's inputs (uniform random) and outputs in host memory, on one shape set; with doubleOutputs, the outputs
// are Float64 (what OpReference::runInDouble writes).
struct HostTensors
{
    std::vector<std::vector<std::uint64_t>> storage; // 8-byte words: fits every dtype
    std::vector<TensorView> inputs;
    std::vector<TensorView> outputs;

    HostTensors(const Op &op, const ShapeSet &shapes, bool doubleOutputs = false)
    {
        storage.reserve(op.inputs.size() + op.outputs.size());
        const auto add = [this](TensorLayout layout) {
            storage.emplace_back(std::size_t(layout.byteCount() + 7) / 8);
            return layout.view(storage.back().data(), -1);
        };
        for (const auto &spec : op.inputs) {
            inputs.push_back(add(*resolveLayout(spec, shapes)));
            REQUIRE(TensorOps::fillRandom(inputs.back(), 5, Distribution::Uniform).isOk());
        }
        for (const auto &spec : op.outputs) {
            auto layout = *resolveLayout(spec, shapes);
            if (doubleOutputs)
                layout.dtype = DType::Float64;
            outputs.push_back(add(layout));
        }
    }
};

TimingSummary timing(double medianMs, double wallMs)
{
    TimingSummary summary;
    summary.medianMs = medianMs;
    summary.minMs = medianMs;
    summary.wallMedianMs = wallMs;
    summary.runs = 100;
    return summary;
}

} // namespace

TEST_CASE("every built-in op is complete and consistent")
{
    REQUIRE(builtInOps().size() >= 5);
    for (const Op &op : builtInOps()) {
        CAPTURE(op.name);
        CHECK(findBuiltInOp(op.name) == &op);
        CHECK(op.shapeSets.size() >= 2);
        CHECK_FALSE(op.inputs.empty());
        CHECK_FALSE(op.outputs.empty());
        for (const ShapeSet &shapes : op.shapeSets) {
            for (const auto &spec : op.inputs)
                CHECK(resolveLayout(spec, shapes).hasValue());
            for (const auto &spec : op.outputs)
                CHECK(resolveLayout(spec, shapes).hasValue());
            const auto floor = rooflineFloor(op, shapes, 1000, 50);
            REQUIRE(floor.hasValue());
            CHECK(floor->bytes > 0);
            CHECK(floor->flops >= 0);
            CHECK(floor->floorMs > 0);
        }
        if (TensorOps::haveTorch())
            CHECK(Reference::has(op.name));
    }
    CHECK(findBuiltInOp("no-such-op") == nullptr);
}

TEST_CASE("layouts bind shape symbols and reject bad specs")
{
    const ShapeSet shapes{{"N", 6}, {"D", 4}};
    const auto layout = resolveLayout({"x", {"N", "D", "2"}, "float16"}, shapes);
    REQUIRE(layout.hasValue());
    CHECK(layout->shape == std::vector<std::int64_t>{6, 4, 2});
    CHECK(layout->byteCount() == 6 * 4 * 2 * 2);
    CHECK(resolveLayout({"x", {"M"}, "float32"}, shapes).error().message.find("unknown shape symbol 'M'")
          != std::string::npos);
    CHECK(resolveLayout({"x", {"0"}, "float32"}, shapes).error().message.find("at least 1") != std::string::npos);
    CHECK(resolveLayout({"x", {"N"}, "complex64"}, shapes).error().message.find("unsupported dtype")
          != std::string::npos);
}

TEST_CASE("the roofline floor is the slower of memory and compute")
{
    Op op;
    op.bytesMovedExpr = "8 * N";
    op.flopsExpr = "N";
    const auto memoryBound = rooflineFloor(op, {{"N", 1000000000}}, 1000, 100);
    REQUIRE(memoryBound.hasValue());
    CHECK(memoryBound->floorMs == doctest::Approx(8.0)); // 8 GB at 1000 GB/s
    op.flopsExpr = "1000 * N";
    const auto computeBound = rooflineFloor(op, {{"N", 1000000000}}, 1000, 100);
    REQUIRE(computeBound.hasValue());
    CHECK(computeBound->floorMs == doctest::Approx(10.0)); // 1e12 FLOPs at 100 TFLOP/s
    op.bytesMovedExpr = "8 * M";
    CHECK_FALSE(rooflineFloor(op, {{"N", 1}}, 1000, 100).hasValue());
}

TEST_CASE("timing flags")
{
    EvalSettings settings;
    RooflineFloor floor;
    floor.floorMs = 1.0;
    floor.bytes = 1e9;
    floor.bandwidthGBs = 1000;

    SUBCASE("a plausible result carries no flag")
    {
        const auto flags = timingFlags({timing(1.1, 1.2), timing(2.0, 2.1), 2.0 / 1.1, floor}, settings);
        CHECK(flags.empty());
    }
    SUBCASE("under the floor is impossible, with the numbers")
    {
        const auto flags = timingFlags({timing(0.5, 0.6), timing(2.0, 2.1), 4.0, floor}, settings);
        REQUIRE(hasFlag(flags, "impossible"));
        const auto evidence = nlohmann::json::parse(flags.front().evidence);
        CHECK(evidence.at("floorMs").get<double>() == doctest::Approx(1.0));
        CHECK(evidence.at("measuredMs").get<double>() == doctest::Approx(0.5));
        CHECK(evidence.at("bytes").get<double>() == doctest::Approx(1e9));
        CHECK(evidence.at("bandwidthGBs").get<double>() == doctest::Approx(1000));
        CHECK(evidence.contains("flops"));
    }
    SUBCASE("just under the floor is within the slack")
    {
        CHECK(timingFlags({timing(0.9, 1.0), timing(2.0, 2.1), 2.2, floor}, settings).empty());
    }
    SUBCASE("a speedup above the threshold is suspicious")
    {
        const auto flags = timingFlags({timing(1.0, 1.1), timing(20.0, 20.1), 20.0, floor}, settings);
        CHECK(hasFlag(flags, "suspicious"));
    }
    SUBCASE("wall clock far above the event time is suspicious")
    {
        const auto flags = timingFlags({timing(1.0, 9.0), timing(2.0, 2.1), 2.0, floor}, settings);
        REQUIRE(hasFlag(flags, "suspicious"));
        CHECK(flags.front().evidence.find("wall-clock") != std::string::npos);
    }
    SUBCASE("the reference's own overhead is allowed for")
    {
        CHECK(timingFlags({timing(1.0, 2.5), timing(2.0, 3.5), 2.0, floor}, settings).empty());
    }
    SUBCASE("events longer than the wall clock are suspicious")
    {
        CHECK(hasFlag(timingFlags({timing(2.0, 1.0), timing(2.0, 2.1), 1.0, floor}, settings), "suspicious"));
    }
}

TEST_CASE("timing input sets: as many as the GPU's free memory holds, at least one, at most the request")
{
    constexpr std::int64_t GiB = std::int64_t(1) << 30;
    // Small tensors: the request stands.
    CHECK(timingSetsThatFit(3, 70 * GiB, GiB, GiB) == 3);
    // KernelBench's RMSNorm at 7.5 GB a tensor on a card with 45 GB free: 45 - 30 of headroom leaves one set.
    CHECK(timingSetsThatFit(3, 45 * GiB, 15 * GiB / 2, 15 * GiB / 2) == 1);
    CHECK(timingSetsThatFit(3, 60 * GiB, 15 * GiB / 2, 15 * GiB / 2) == 2);
    // Never none, never more than asked; an unknown free size keeps the request.
    CHECK(timingSetsThatFit(3, GiB, 4 * GiB, 4 * GiB) == 1);
    CHECK(timingSetsThatFit(0, 70 * GiB, GiB, GiB) == 1);
    CHECK(timingSetsThatFit(3, -1, GiB, GiB) == 3);
}

TEST_CASE("tolerance comparison on host tensors")
{
    if (!TensorOps::haveTorch()) {
        MESSAGE("built without LibTorch: comparison not tested");
        return;
    }
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> expected{1.0f, -2.0f, 0.0f, nan, inf, 100.0f};

    std::vector<float> same = expected;
    auto comparison = TensorOps::compare(hostView(same), hostView(expected), 1e-4, 1e-4);
    REQUIRE(comparison.hasValue());
    CHECK(comparison->mismatches == 0);

    std::vector<float> close{1.00005f, -2.0f, 0.00005f, nan, inf, 100.005f};
    comparison = TensorOps::compare(hostView(close), hostView(expected), 1e-4, 1e-4);
    CHECK(comparison->mismatches == 0);
    CHECK(comparison->maxAbsError > 0);

    std::vector<float> wrong{1.0f, -2.0f, nan, 0.0f, -inf, 100.1f};
    comparison = TensorOps::compare(hostView(wrong), hostView(expected), 1e-4, 1e-4);
    CHECK(comparison->mismatches == 4);
    CHECK(comparison->firstMismatch == 2);
    CHECK(std::isnan(comparison->actualAtFirst));

    std::vector<float> shorter{1.0f};
    CHECK_FALSE(TensorOps::compare(hostView(shorter), hostView(expected), 1e-4, 1e-4).hasValue());

    SUBCASE("slice by slice, the figures are those of the whole")
    {
        for (const std::int64_t slice : {1, 2, 4, 5, 64}) {
            CAPTURE(slice);
            const auto sliced = TensorOps::compare(hostView(wrong), hostView(expected), 1e-4, 1e-4, slice);
            REQUIRE(sliced.hasValue());
            CHECK(sliced->elements == 6);
            CHECK(sliced->mismatches == 4);
            CHECK(sliced->firstMismatch == 2);
            CHECK(std::isnan(sliced->actualAtFirst));
            CHECK(sliced->maxAbsError == doctest::Approx(comparison->maxAbsError));
            CHECK(sliced->maxRelError == doctest::Approx(comparison->maxRelError));
        }
        std::vector<float> lateMismatch = expected;
        lateMismatch[5] = 101.0f;
        const auto late = TensorOps::compare(hostView(lateMismatch), hostView(expected), 1e-4, 1e-4, 4);
        REQUIRE(late.hasValue());
        CHECK(late->firstMismatch == 5);
        CHECK(late->actualAtFirst == doctest::Approx(101.0));
        CHECK(late->expectedAtFirst == doctest::Approx(100.0));
    }
}

TEST_CASE("outputs compare with a float64 answer in double, and with nothing else of another type")
{
    if (!TensorOps::haveTorch()) {
        MESSAGE("built without LibTorch: comparison not tested");
        return;
    }
    // 1 + 2^-30 is not a float: in double the difference shows, in float it would vanish.
    std::vector<double> exact{1.0 + std::ldexp(1.0, -30), -2.0, 1e6};
    std::vector<float> fp32{1.0f, -2.0f, 1e6f + 1.0f};
    const TensorView exactView{exact.data(), {3}, DType::Float64, -1};
    const auto comparison = TensorOps::compare(hostView(fp32), exactView, 0, 1e-10);
    REQUIRE(comparison.hasValue());
    CHECK(comparison->mismatches == 2);
    CHECK(comparison->firstMismatch == 0);
    CHECK(comparison->maxAbsError == doctest::Approx(1.0));
    // A float64 actual against a float expectation is no exact check: refused.
    CHECK_FALSE(TensorOps::compare(exactView, hostView(fp32), 1e-4, 1e-4).hasValue());
    std::vector<std::int32_t> integers{1, -2, 3};
    const TensorView integerView{integers.data(), {3}, DType::Int32, -1};
    CHECK_FALSE(TensorOps::compare(integerView, exactView, 1e-4, 1e-4).hasValue());
}

TEST_CASE("root mean square of the finite elements, slice by slice")
{
    if (!TensorOps::haveTorch()) {
        MESSAGE("built without LibTorch: not tested");
        return;
    }
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> values{3.0f, -4.0f, nan, inf, 0.0f};
    for (const std::int64_t slice : {std::int64_t(1), std::int64_t(2), TensorOps::kSliceElements}) {
        const auto rms = TensorOps::rootMeanSquare(hostView(values), slice);
        REQUIRE_MESSAGE(rms, (rms ? "" : rms.error().message));
        CHECK(*rms == doctest::Approx(std::sqrt(25.0 / 3.0)));
    }
    std::vector<float> none{nan, -inf};
    CHECK(*TensorOps::rootMeanSquare(hostView(none)) == 0.0);
}

TEST_CASE("fp32 throughput follows the architecture")
{
    CHECK(fp32LanesPerSm(8, 0) == 64); // A100
    CHECK(fp32LanesPerSm(7, 0) == 64); // V100
    CHECK(fp32LanesPerSm(8, 6) == 128);
    CHECK(fp32LanesPerSm(8, 9) == 128);
    CHECK(fp32LanesPerSm(9, 0) == 128); // H100, H200
    CHECK(fp32LanesPerSm(10, 0) == 128);
    // H100 SXM: 132 SMs at 1980 MHz boost.
    CHECK(peakFp32Tflops(9, 0, 132, 1980) == doctest::Approx(66.9).epsilon(0.01));
    CHECK(peakFp32Tflops(8, 0, 108, 1410) == doctest::Approx(19.5).epsilon(0.01));
}

TEST_CASE("under a policy that allows TF32 the roofline uses the tensor cores' peak")
{
    GpuInfo h100;
    h100.computeCapability = "9.0";
    h100.peakTflops = peakFp32Tflops(9, 0, 132, 1980);
    CHECK(peakTflopsFor(h100, Precision::Fp32) == h100.peakTflops);
    // H100 SXM: about 495 TFLOP/s of dense TF32 at 1830 MHz; at the 1980 MHz the worker reads, about 535.
    CHECK(peakTflopsFor(h100, Precision::Tf32) == doctest::Approx(535.3).epsilon(0.01));
    GpuInfo a100 = h100;
    a100.computeCapability = "8.0";
    a100.peakTflops = peakFp32Tflops(8, 0, 108, 1410);
    CHECK(peakTflopsFor(a100, Precision::Tf32) == doctest::Approx(156).epsilon(0.01)); // the A100's datasheet figure
    GpuInfo ada = h100;
    ada.computeCapability = "8.9";
    CHECK(peakTflopsFor(ada, Precision::Tf32) == 2 * ada.peakTflops);
    GpuInfo volta = h100;
    volta.computeCapability = "7.0";
    CHECK(peakTflopsFor(volta, Precision::Tf32) == volta.peakTflops); // no TF32 before sm_80
    GpuInfo unknown = h100;
    unknown.computeCapability = "";
    CHECK(peakTflopsFor(unknown, Precision::KernelBench)
          >= peakTflopsFor(h100, Precision::Tf32)); // err high: the floor stays a lower bound

    // A TF32 GEMM at cuBLAS speed (2 * 4096^3 FLOPs in 0.3 ms, 458 TFLOP/s) is under the fp32 floor but not
    // under the TF32 one.
    Op op;
    op.flopsExpr = "2 * 4096 * 4096 * 4096";
    const auto fp32Floor = rooflineFloor(op, {}, 3350, peakTflopsFor(h100, Precision::Fp32));
    const auto tf32Floor = rooflineFloor(op, {}, 3350, peakTflopsFor(h100, Precision::Tf32));
    REQUIRE(fp32Floor);
    REQUIRE(tf32Floor);
    CHECK(fp32Floor->floorMs > 0.3);
    CHECK(tf32Floor->floorMs < 0.3);
}

TEST_CASE("bitwise equality sees every bit")
{
    if (!TensorOps::haveTorch())
        return;
    std::vector<float> a{0.0f, 1.0f};
    std::vector<float> b{-0.0f, 1.0f};
    std::vector<float> c = a;
    CHECK(*TensorOps::bitEqual(hostView(a), hostView(c)));
    CHECK_FALSE(*TensorOps::bitEqual(hostView(a), hostView(b)));
}

TEST_CASE("references run on host tensors and follow the op specs")
{
    if (!TensorOps::haveTorch())
        return;
    const Op &relu = *findBuiltInOp("relu");
    std::vector<float> x(1000);
    std::vector<float> out(1000);
    REQUIRE(TensorOps::fillRandom(hostView(x), 3, Distribution::Normal).isOk());
    const auto status = Reference::run(relu.name, {hostView(x)}, {hostView(out)});
    INFO((status.isOk() ? std::string() : status.error().message));
    REQUIRE(status.isOk());
    for (std::size_t i = 0; i < x.size(); ++i)
        CHECK(out[i] == std::max(x[i], 0.0f));

    // Every built-in op's reference returns what its spec declares, on its smaller shape set.
    for (const Op &op : builtInOps()) {
        CAPTURE(op.name);
        HostTensors tensors(op, op.shapeSets.back());
        const auto &inputs = tensors.inputs;
        const auto ran = Reference::run(op.name, inputs, tensors.outputs);
        INFO((ran.isOk() ? std::string() : ran.error().message));
        CHECK(ran.isOk());
        CHECK(Reference::runEager(op.name, inputs).isOk());
    }
    CHECK_FALSE(Reference::run("no-such-op", {}, {}).isOk());
}

TEST_CASE("library steps call ATen ops by name")
{
    if (!TensorOps::haveTorch())
        return;
    std::vector<float> x{-1.0f, 2.0f, -3.0f};
    std::vector<float> out(3, 0.0f);
    std::vector<ResolvedArg> args(2);
    args[0].kind = PlanArg::Kind::Input;
    args[0].name = "x";
    args[1].kind = PlanArg::Kind::Output;
    args[1].name = "out";
    REQUIRE(TensorOps::runLibraryStep("aten::relu", args, {hostView(x), hostView(out)}).isOk());
    CHECK(out == std::vector<float>{0.0f, 2.0f, 0.0f});

    const auto unknown = TensorOps::runLibraryStep("aten::no_such_op", args, {hostView(x), hostView(out)});
    REQUIRE_FALSE(unknown.isOk());
    CHECK(unknown.error().message.find("unknown ATen op") != std::string::npos);

    args[1].kind = PlanArg::Kind::Input;
    CHECK_FALSE(TensorOps::runLibraryStep("aten::relu", args, {hostView(x), hostView(out)}).isOk());
}

TEST_CASE("a library step's cuDNN benchmark mode lasts for its call only")
{
    if (!TensorOps::haveTorch())
        return;
    // A 1 x 1 x 3 x 3 image convolved with a 1 x 1 x 2 x 2 kernel of ones: sums of 2 x 2 windows.
    std::vector<float> image{1, 2, 3, 4, 5, 6, 7, 8, 9}, kernel{1, 1, 1, 1}, out(4, 0.0f);
    const std::vector<std::vector<std::int64_t>> shapes{{1, 1, 3, 3}, {1, 1, 2, 2}, {1, 1, 2, 2}};
    std::vector<ResolvedArg> args(3);
    std::vector<TensorView> views{hostView(image), hostView(kernel), hostView(out)};
    for (std::size_t i = 0; i < 3; ++i) {
        args[i].kind = i < 2 ? PlanArg::Kind::Input : PlanArg::Kind::Output;
        args[i].name = std::string(1, "xwo"[i]);
        args[i].hasShape = true;
        args[i].ints = shapes[i];
        views[i].shape = shapes[i];
    }
    REQUIRE_FALSE(TensorOps::cudnnBenchmark());
    const auto ran = TensorOps::runLibraryStep("aten::conv2d", args, views, true);
    REQUIRE_MESSAGE(ran.isOk(), (ran.isOk() ? "" : ran.error().message));
    CHECK(out == std::vector<float>{12, 16, 24, 28});
    CHECK_FALSE(TensorOps::cudnnBenchmark()); // eager PyTorch's setting again, for the baselines timed after it
    // Also when the call fails: a kernel of two input channels on an image of one.
    args[1].ints = views[1].shape = {1, 2, 2, 1};
    CHECK_FALSE(TensorOps::runLibraryStep("aten::conv2d", args, views, true).isOk());
    CHECK_FALSE(TensorOps::cudnnBenchmark());
}

// A convolution of integer values (exact in fp32, whatever the summation order) run on NCHW operands and on
// channels-last copies: the same numbers, written to the destination in its own (NCHW) order.
TEST_CASE("a library convolution on channels-last copies writes the same NCHW result")
{
    if (!TensorOps::haveTorch())
        return;
    const auto value = [](std::size_t tensor, std::size_t i) { return float(tensor ? i * 5 % 7 : i * 7 % 11) - 4.0f; };
    const auto convolve = [&](const std::string &atenOp, const std::vector<std::vector<std::int64_t>> &shapes,
                              bool channelsLast) {
        std::vector<std::vector<float>> buffers(3);
        std::vector<ResolvedArg> args(3);
        std::vector<TensorView> views;
        for (std::size_t t = 0; t < 3; ++t) {
            buffers[t].resize(
                std::size_t(std::accumulate(shapes[t].begin(), shapes[t].end(), std::int64_t(1), std::multiplies<>())));
            for (std::size_t i = 0; t < 2 && i < buffers[t].size(); ++i)
                buffers[t][i] = value(t, i);
            args[t].kind = t < 2 ? PlanArg::Kind::Input : PlanArg::Kind::Output;
            args[t].name = std::string(1, "xwo"[t]);
            args[t].hasShape = true;
            args[t].ints = shapes[t];
            views.push_back(hostView(buffers[t]));
            views.back().shape = shapes[t];
        }
        const auto ran = TensorOps::runLibraryStep(atenOp, args, views, false, channelsLast);
        REQUIRE_MESSAGE(ran.isOk(), (ran.isOk() ? "" : ran.error().message));
        return buffers[2];
    };
    // 2 x 3 x 4 x 5 images, 4 filters of 3 x 2 x 3: outputs of 2 x 4 x 3 x 3.
    const std::vector<std::vector<std::int64_t>> planar{{2, 3, 4, 5}, {4, 3, 2, 3}, {2, 4, 3, 3}};
    const auto nchw = convolve("aten::conv2d", planar, false);
    CHECK(convolve("aten::conv2d", planar, true) == nchw);
    // Out[0, 0, 0, 0] by hand: the first filter over the first window of the first image.
    float first = 0;
    for (std::size_t c = 0; c < 3; ++c)
        for (std::size_t r = 0; r < 2; ++r)
            for (std::size_t s = 0; s < 3; ++s)
                first += value(0, (c * 4 + r) * 5 + s) * value(1, (c * 2 + r) * 3 + s);
    CHECK(nchw.at(0) == first);
    // Volumes (NDHWC copies): 1 x 2 x 3 x 3 x 4 with 3 filters of 2 x 2 x 2 x 2.
    const std::vector<std::vector<std::int64_t>> volumes{{1, 2, 3, 3, 4}, {3, 2, 2, 2, 2}, {1, 3, 2, 2, 3}};
    CHECK(convolve("aten::conv3d", volumes, true) == convolve("aten::conv3d", volumes, false));
    // Other ops do not take the flag.
    std::vector<float> x{-1.0f, 2.0f}, out(2, 0.0f);
    std::vector<ResolvedArg> args(2);
    args[0].kind = PlanArg::Kind::Input;
    args[1].kind = PlanArg::Kind::Output;
    CHECK_FALSE(TensorOps::runLibraryStep("aten::relu", args, {hostView(x), hostView(out)}, false, true).isOk());
}

TEST_CASE("library steps take int lists, booleans, none, strings and tensors seen in another shape")
{
    if (!TensorOps::haveTorch())
        return;
    const auto arg = [](PlanArg::Kind kind, std::string name = {}) {
        ResolvedArg resolved;
        resolved.kind = kind;
        resolved.name = std::move(name);
        return resolved;
    };
    const auto ints = [&](std::vector<std::int64_t> values) {
        ResolvedArg resolved = arg(PlanArg::Kind::Ints);
        resolved.ints = std::move(values);
        return resolved;
    };
    // A flat 4 x 4 image seen as [1, 1, 4, 4]; 2 x 2 max pooling into [1, 1, 2, 2].
    std::vector<float> image(16);
    for (std::size_t i = 0; i < image.size(); ++i)
        image[i] = float(i);
    std::vector<float> pooled(4, -1.0f);
    auto x = arg(PlanArg::Kind::Input, "x");
    x.hasShape = true;
    x.ints = {1, 1, 4, 4};
    auto out = arg(PlanArg::Kind::Output, "out");
    out.hasShape = true;
    out.ints = {1, 1, 2, 2};
    auto ceilMode = arg(PlanArg::Kind::Bool);
    ceilMode.flag = false;
    const std::vector<ResolvedArg> poolArgs{x, ints({2, 2}), ints({}), ints({0, 0}), ints({1, 1}), ceilMode, out};
    TensorView imageView = hostView(image);
    imageView.shape = x.ints;
    TensorView pooledView = hostView(pooled);
    pooledView.shape = out.ints;
    const std::vector<TensorView> poolViews{imageView, {}, {}, {}, {}, {}, pooledView};
    const auto ran = TensorOps::runLibraryStep("aten::max_pool2d", poolArgs, poolViews);
    REQUIRE_MESSAGE(ran.isOk(), (ran.isOk() ? "" : ran.error().message));
    CHECK(pooled == std::vector<float>{5.0f, 7.0f, 13.0f, 15.0f});

    // An overload by name: the values of min over dim 1 (its second result, the indices, is not wanted).
    std::vector<float> minimum(4, -1.0f);
    auto dim = arg(PlanArg::Kind::Int);
    dim.intValue = 1;
    auto keep = arg(PlanArg::Kind::Bool);
    TensorView rows = hostView(image);
    rows.shape = {4, 4};
    auto rowsArg = arg(PlanArg::Kind::Input, "x");
    const auto minRan = TensorOps::runLibraryStep(
        "aten::min.dim", {rowsArg, dim, keep, arg(PlanArg::Kind::Output, "out")}, {rows, {}, {}, hostView(minimum)});
    REQUIRE_MESSAGE(minRan.isOk(), (minRan.isOk() ? "" : minRan.error().message));
    CHECK(minimum == std::vector<float>{0.0f, 4.0f, 8.0f, 12.0f});

    // The schema decides: an int where a float or a bool is wanted is converted; a string is passed as one.
    std::vector<float> copy(16, -1.0f);
    auto zero = arg(PlanArg::Kind::Int);
    const auto dropped = TensorOps::runLibraryStep(
        "aten::dropout", {rowsArg, zero, zero, arg(PlanArg::Kind::Output, "o")}, {rows, {}, {}, hostView(copy)});
    REQUIRE_MESSAGE(dropped.isOk(), (dropped.isOk() ? "" : dropped.error().message));
    CHECK(copy == image);
    auto approximate = arg(PlanArg::Kind::String);
    approximate.text = "tanh";
    std::vector<float> gelu(16, -1.0f);
    REQUIRE(TensorOps::runLibraryStep("aten::gelu", {rowsArg, approximate, arg(PlanArg::Kind::Output, "o")},
                                      {rows, {}, hostView(gelu)})
                .isOk());
    CHECK(gelu[2] == doctest::Approx(1.9546).epsilon(1e-3));
    approximate.text = "no-such-mode";
    CHECK_FALSE(TensorOps::runLibraryStep("aten::gelu", {rowsArg, approximate, arg(PlanArg::Kind::Output, "o")},
                                          {rows, {}, hostView(gelu)})
                    .isOk());
    // None for an optional argument: sum over everything with no dtype.
    std::vector<float> total(1, -1.0f);
    REQUIRE(TensorOps::runLibraryStep("aten::sum", {rowsArg, arg(PlanArg::Kind::None), arg(PlanArg::Kind::Output, "o")},
                                      {rows, {}, hostView(total)})
                .isOk());
    CHECK(total[0] == 120.0f);
}

TEST_CASE("fingerprints see every word and its position")
{
    if (!TensorOps::haveTorch())
        return;
    std::vector<float> a(3000);
    REQUIRE(TensorOps::fillRandom(hostView(a), 4, Distribution::Normal).isOk());
    auto b = a;
    CHECK(*TensorOps::fingerprint(hostView(a)) == *TensorOps::fingerprint(hostView(b)));
    b[1234] = std::nextafter(b[1234], 100.0f);
    CHECK(*TensorOps::fingerprint(hostView(a)) != *TensorOps::fingerprint(hostView(b)));
    auto swapped = a;
    std::swap(swapped[10], swapped[20]);
    CHECK(*TensorOps::fingerprint(hostView(a)) != *TensorOps::fingerprint(hostView(swapped)));
}

TEST_CASE("finiteness and evenly strided samples")
{
    if (!TensorOps::haveTorch())
        return;
    std::vector<float> values(1000);
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = float(i);
    CHECK(*TensorOps::allFinite(hostView(values)));
    const auto sample = *TensorOps::sample(hostView(values), 300);
    REQUIRE(sample.size() == 250); // stride 4
    CHECK(sample[0] == 0.0);
    CHECK(sample[1] == 4.0);
    values[500] = std::numeric_limits<float>::infinity();
    CHECK_FALSE(*TensorOps::allFinite(hostView(values)));
}

TEST_CASE("every built-in reference also runs in float64, close to its fp32 answer")
{
    if (!TensorOps::haveTorch())
        return;
    for (const Op &op : builtInOps()) {
        CAPTURE(op.name);
        HostTensors tensors(op, op.shapeSets.back());
        HostTensors exactTensors(op, op.shapeSets.back(), true); // the same inputs (same seed), Float64 outputs
        const auto &inputs = tensors.inputs;
        const auto &outputs = tensors.outputs;
        const auto &exact = exactTensors.outputs;
        auto reference = Reference::forOp(op, -1);
        REQUIRE(reference);
        REQUIRE((*reference)->run(inputs, outputs).isOk());
        const auto ran = (*reference)->runInDouble(inputs, exact);
        INFO((ran.isOk() ? std::string() : ran.error().message));
        REQUIRE(ran.isOk());
        const auto fp32 = *TensorOps::sample(outputs[0], 1 << 20);
        const auto fp64 = *TensorOps::sample(exact[0], 1 << 20);
        const auto profile = measureErrors({fp32}, {fp64});
        CHECK(profile.samples == std::int64_t(fp64.size()));
        CHECK(profile.p99RelError < 1e-5);
    }
}

TEST_CASE("error profiles and the reduced-precision flag")
{
    std::vector<double> exact;
    std::vector<double> fp32;
    std::vector<double> truncated; // 13 mantissa bits: up to 2^-12 relative error, inside a 1e-3 tolerance
    for (int i = 0; i < 20000; ++i) {
        const double value = std::sin(i * 0.37) * 3 + 0.01 * i;
        exact.push_back(value);
        fp32.push_back(double(float(value)));
        int exponent = 0;
        const double mantissa = std::frexp(value, &exponent);
        truncated.push_back(std::ldexp(std::trunc(mantissa * 8192) / 8192, exponent));
    }
    const auto fp32Profile = measureErrors({fp32}, {exact});
    CHECK(fp32Profile.samples == 20000);
    CHECK(fp32Profile.maxRelError <= 6e-8);
    CHECK(fp32Profile.p99RelError > 0);
    CHECK(fp32Profile.medianRelError <= fp32Profile.p99RelError);

    PrecisionAudit honest{fp32Profile, fp32Profile, {}, {}};
    CHECK_FALSE(reducedPrecisionFlag(honest, Precision::Fp32));

    PrecisionAudit reduced{measureErrors({truncated}, {exact}), fp32Profile, {}, {}};
    CHECK(reduced.candidate.p99RelError > 1e-5);
    const auto flag = reducedPrecisionFlag(reduced, Precision::Fp32);
    REQUIRE(flag);
    CHECK(flag->kind == "reduced-precision");
    const auto evidence = nlohmann::json::parse(flag->evidence);
    CHECK(evidence.at("candidateP99RelError").get<double>() == reduced.candidate.p99RelError);
    // TF32 arithmetic explains errors of this size; KernelBench's policy admits them.
    CHECK_FALSE(reducedPrecisionFlag(reduced, Precision::Tf32));
    CHECK_FALSE(reducedPrecisionFlag(reduced, Precision::KernelBench));
    // No exact answer, no flag.
    PrecisionAudit unavailable{reduced.candidate, {}, {}, "this reference cannot run in float64"};
    CHECK_FALSE(reducedPrecisionFlag(unavailable, Precision::Fp32));

    // Non-finite elements are left out; near-zero outputs count by their absolute error.
    const auto withNan = measureErrors({{1.0, std::nan(""), 1e-12}}, {{1.0, 2.0, 0.0}});
    CHECK(withNan.samples == 2);
    CHECK(withNan.maxRelError < 1e-6);
}

TEST_CASE("a trial that misses the fp32 reference passes only as close to the float64 answer as eager")
{
    // Within the tolerance of the exact answer: passes whatever the fp32 reference did.
    CHECK(passesOnExactAnswer({0, 0.5}, {0, 0.1}));
    CHECK(passesOnExactAnswer({0, 0.5}, {12, 160}));
    // An ill-conditioned trial (attention picking other keys): eager's fp32 misses too, about as much.
    CHECK(passesOnExactAnswer({26, 5.9}, {20, 6.2}));
    CHECK(passesOnExactAnswer({24, 12.0}, {12, 6.0}));
    // More than twice fp32's misses, or twice its largest error: a wrong kernel, not rounding.
    CHECK_FALSE(passesOnExactAnswer({25, 6.0}, {12, 6.0}));
    CHECK_FALSE(passesOnExactAnswer({12, 12.5}, {12, 6.0}));
    // fp32 is within the tolerance of the exact answer: any miss of the candidate is its own.
    CHECK_FALSE(passesOnExactAnswer({1, 0.01}, {0, 0.0}));
    const auto text = describeExactMisses({26, 5.859}, {20, 6.2}, "the fp32 reference");
    CHECK(text
          == "against the float64 answer, this output misses 26 elements (largest error 5.859) and the fp32 "
             "reference 20 elements (largest error 6.2)");
}

TEST_CASE("a correctness report keeps its inputs and precision audit through JSON")
{
    CorrectnessReport report;
    report.trials = 12;
    report.inputs = {"normal", "wide x1/16 (the reference was not finite at full scale)"};
    report.timingInputSets = 3;
    report.precisionAudit = PrecisionAudit{{100, 1e-6, 5e-7, 1e-7}, {100, 1e-7, 6e-8, 2e-8}, {}, {}};
    const nlohmann::json j = report;
    CHECK(j.get<CorrectnessReport>() == report);
    CorrectnessReport old = nlohmann::json{{"trials", 5}}.get<CorrectnessReport>();
    CHECK(old.inputs.empty());
    CHECK_FALSE(old.precisionAudit);
}

TEST_CASE("a keystream seals a tensor beyond recognition, and the same key unseals it")
{
    if (!TensorOps::haveTorch())
        return;
    std::vector<float> values(4099);
    REQUIRE(TensorOps::fillRandom(hostView(values), 8, Distribution::Normal).isOk());
    const auto original = values;
    REQUIRE(TensorOps::applyKeystream(hostView(values), 12345).isOk());
    std::size_t same = 0;
    for (std::size_t i = 0; i < values.size(); ++i)
        same += std::memcmp(&values[i], &original[i], sizeof(float)) == 0;
    CHECK(same < 10);
    auto other = original;
    REQUIRE(TensorOps::applyKeystream(hostView(other), 54321).isOk());
    CHECK(std::memcmp(other.data(), values.data(), values.size() * sizeof(float)) != 0); // another key, other bytes
    REQUIRE(TensorOps::applyKeystream(hostView(values), 12345).isOk());
    CHECK(std::memcmp(values.data(), original.data(), values.size() * sizeof(float)) == 0);
}
