// TorchScript references of imported ops on host tensors: decoding, loading, running, and every way they fail.
// Needs LibTorch (CPU is enough) and a Python with PyTorch to make the modules; skips without them.
#include "referencemodules.h"

#include "core/gpu/reference.h"
#include "core/gpu/scriptedreference.h"
#include "core/gpu/tensorops.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

using namespace kx;
using namespace kx::test;

namespace {

bool skipWithoutTorch()
{
    if (!TensorOps::haveTorch()) {
        std::cout << "this build has no LibTorch: skipped\n";
        std::exit(77);
    }
    referenceModules(); // skips without a Python that has PyTorch
    return true;
}

[[maybe_unused]] const bool ready = skipWithoutTorch();

TensorView hostView(std::vector<float> &values, std::vector<std::int64_t> shape)
{
    return TensorView{values.data(), std::move(shape), DType::Float32, -1};
}

TensorView hostView(std::vector<float> &values)
{
    return hostView(values, {std::int64_t(values.size())});
}

Op importedOp(const std::string &name, const std::string &module, std::vector<TensorSpec> inputs,
              std::vector<TensorSpec> outputs)
{
    Op op;
    op.name = "kb/test/" + name;
    op.sourceKind = SourceKind::KernelBench;
    op.inputs = std::move(inputs);
    op.outputs = std::move(outputs);
    op.referenceModule = module;
    return op;
}

Op reluOp(const std::string &module = referenceModule("relu"))
{
    return importedOp("relu", module, {{"x", {"N"}}}, {{"out", {"N"}}});
}

std::shared_ptr<ScriptedReference> load(const Op &op)
{
    auto loaded = ScriptedReference::load(op, -1);
    INFO((loaded ? std::string() : loaded.error().message));
    REQUIRE(loaded.hasValue());
    return *loaded;
}

std::string failure(const Status &status)
{
    return status.isOk() ? std::string("(no error)") : status.error().message;
}

std::vector<float> ramp(std::size_t count, float start, float step)
{
    std::vector<float> values(count);
    for (std::size_t i = 0; i < count; ++i)
        values[i] = start + step * float(i);
    return values;
}

} // namespace

TEST_CASE("a scripted relu runs on host tensors")
{
    const Op op = reluOp();
    auto reference = load(op);
    auto x = ramp(1001, -5.0f, 0.01f);
    std::vector<float> out(x.size(), -7.0f);
    const auto status = reference->run({hostView(x)}, {hostView(out)});
    REQUIRE_MESSAGE(status.isOk(), failure(status));
    for (std::size_t i = 0; i < x.size(); ++i)
        CHECK(out[i] == std::max(x[i], 0.0f));
    CHECK(reference->runEager({hostView(x)}).isOk());
}

TEST_CASE("a traced module takes the model's parameters as inputs")
{
    const Op op = importedOp("scale_shift", referenceModule("scale_shift"),
                             {{"x", {"R", "C"}}, {"weight", {"C"}}, {"bias", {"C"}}}, {{"out", {"R", "C"}}});
    auto reference = load(op);
    auto x = ramp(4 * 5, -1.0f, 0.25f);
    auto weight = ramp(5, 2.0f, -0.5f);
    auto bias = ramp(5, 0.5f, 1.0f);
    std::vector<float> out(x.size());
    const auto status =
        reference->run({hostView(x, {4, 5}), hostView(weight), hostView(bias)}, {hostView(out, {4, 5})});
    REQUIRE_MESSAGE(status.isOk(), failure(status));
    for (std::size_t r = 0; r < 4; ++r) {
        for (std::size_t c = 0; c < 5; ++c)
            CHECK(out[r * 5 + c] == doctest::Approx(x[r * 5 + c] * weight[c] + bias[c]).epsilon(1e-6));
    }
}

// An imported convolution is a traced aten::_convolution whose last arguments fix cuDNN's switches (TF32 off); the
// loaded module reads them from the context instead, and still computes the same convolution, in full and eagerly.
TEST_CASE("a traced convolution computes the convolution")
{
    const Op op =
        importedOp("conv2d", referenceModule("conv2d"), {{"x", {"1", "2", "4", "4"}}, {"w", {"3", "2", "3", "3"}}},
                   {{"out", {"1", "3", "2", "2"}}});
    auto reference = load(op);
    auto x = ramp(2 * 4 * 4, -1.0f, 0.125f);
    auto w = ramp(3 * 2 * 3 * 3, 0.5f, -0.0625f);
    std::vector<float> out(3 * 2 * 2, -7.0f);
    const std::vector<TensorView> inputs{hostView(x, {1, 2, 4, 4}), hostView(w, {3, 2, 3, 3})};
    const auto status = reference->run(inputs, {hostView(out, {1, 3, 2, 2})});
    REQUIRE_MESSAGE(status.isOk(), failure(status));
    for (std::size_t k = 0; k < 3; ++k)
        for (std::size_t i = 0; i < 2; ++i)
            for (std::size_t j = 0; j < 2; ++j) {
                double sum = 0;
                for (std::size_t c = 0; c < 2; ++c)
                    for (std::size_t r = 0; r < 3; ++r)
                        for (std::size_t t = 0; t < 3; ++t)
                            sum += double(x[(c * 4 + i + r) * 4 + j + t]) * double(w[((k * 2 + c) * 3 + r) * 3 + t]);
                CHECK(out[(k * 2 + i) * 2 + j] == doctest::Approx(sum).epsilon(1e-5));
            }
    CHECK(reference->runEager(inputs).isOk());
}

TEST_CASE("a tuple result fills the outputs in order")
{
    const auto module = referenceModule("sum_and_max");
    const Op op = importedOp("sum_and_max", module, {{"x", {"R", "C"}}}, {{"sums", {"R"}}, {"maxima", {"R"}}});
    auto reference = load(op);
    auto x = ramp(3 * 4, -3.0f, 0.5f);
    std::vector<float> sums(3);
    std::vector<float> maxima(3);
    const auto status = reference->run({hostView(x, {3, 4})}, {hostView(sums), hostView(maxima)});
    REQUIRE_MESSAGE(status.isOk(), failure(status));
    for (std::size_t r = 0; r < 3; ++r) {
        const float *row = x.data() + r * 4;
        CHECK(sums[r] == doctest::Approx(row[0] + row[1] + row[2] + row[3]));
        CHECK(maxima[r] == *std::max_element(row, row + 4));
    }

    // Declaring one output where the module returns two is an error naming both counts.
    const Op oneOutput = importedOp("sum_only", module, {{"x", {"R", "C"}}}, {{"sums", {"R"}}});
    const auto mismatch = load(oneOutput)->run({hostView(x, {3, 4})}, {hostView(sums)});
    REQUIRE_FALSE(mismatch.isOk());
    CHECK(mismatch.error().message.find("returns 2 tensors, the op declares 1 output") != std::string::npos);
}

TEST_CASE("outputs that do not match the op's specs are errors naming the output")
{
    auto x = ramp(8, -1.0f, 0.5f);

    std::vector<float> shorter(6, 0.0f);
    const auto shape = load(reluOp())->run({hostView(x)}, {hostView(shorter)});
    REQUIRE_FALSE(shape.isOk());
    CHECK(shape.error().message.find("output 'out' has shape [8], the op declares [6]") != std::string::npos);
    CHECK(shorter == std::vector<float>(6, 0.0f));

    std::vector<double> wider(8, 0.0);
    const TensorView doubles{wider.data(), {8}, DType::Float64, -1};
    const auto dtype = load(reluOp())->run({hostView(x)}, {doubles});
    REQUIRE_FALSE(dtype.isOk());
    CHECK(dtype.error().message.find("output 'out' has dtype Float, the op declares float64") != std::string::npos);

    Op numberOp = importedOp("number", referenceModule("returns_number"), {{"x", {"N"}}}, {{"out", {"N"}}});
    std::vector<float> out(8);
    const auto number = load(numberOp)->run({hostView(x)}, {hostView(out)});
    REQUIRE_FALSE(number.isOk());
    CHECK(number.error().message.find("forward returns a Double, not a tensor") != std::string::npos);
}

TEST_CASE("a module that raises or gets the wrong inputs answers an error, and the next one still runs")
{
    auto x = ramp(16, -1.0f, 0.125f);
    std::vector<float> out(16);
    auto raising = load(importedOp("raises", referenceModule("raises"), {{"x", {"N"}}}, {{"out", {"N"}}}));
    const auto raised = raising->run({hostView(x)}, {hostView(out)});
    REQUIRE_FALSE(raised.isOk());
    CHECK(raised.error().message.find("kb/test/raises") != std::string::npos);
    CHECK(raised.error().message.find("RuntimeError: reference exploded on purpose") != std::string::npos);
    CHECK(raised.error().message.find("Traceback") == std::string::npos);
    CHECK_FALSE(raising->runEager({hostView(x)}).isOk());

    auto relu = load(reluOp());
    const auto tooMany = relu->run({hostView(x), hostView(x)}, {hostView(out)});
    REQUIRE_FALSE(tooMany.isOk());
    CHECK(tooMany.error().message.find("kb/test/relu' failed") != std::string::npos);

    const auto fine = relu->run({hostView(x)}, {hostView(out)});
    REQUIRE_MESSAGE(fine.isOk(), failure(fine));
    CHECK(out[0] == 0.0f);
    CHECK(out[15] == x[15]);
}

TEST_CASE("modules that cannot be loaded are errors")
{
    const auto corrupt = ScriptedReference::load(reluOp("not base64!"), -1);
    REQUIRE_FALSE(corrupt.hasValue());
    CHECK(corrupt.error().message.find("kb/test/relu") != std::string::npos);
    CHECK(corrupt.error().message.find("is not valid base64") != std::string::npos);

    // Valid base64 of something that is no TorchScript archive.
    const auto garbage = ScriptedReference::load(reluOp("aGVsbG8sIHdvcmxkIQ=="), -1);
    REQUIRE_FALSE(garbage.hasValue());
    CHECK(garbage.error().message.find("not a loadable TorchScript archive") != std::string::npos);

    // A truncated archive.
    const auto &relu = referenceModule("relu");
    const auto truncated = ScriptedReference::load(reluOp(relu.substr(0, relu.size() / 8 * 4)), -1);
    REQUIRE_FALSE(truncated.hasValue());
    CHECK(truncated.error().message.find("not a loadable TorchScript archive") != std::string::npos);

    const auto none = ScriptedReference::load(importedOp("none", "", {{"x", {"N"}}}, {{"out", {"N"}}}), -1);
    REQUIRE_FALSE(none.hasValue());
    CHECK(none.error().message.find("has no TorchScript reference module") != std::string::npos);
}

TEST_CASE("a module is loaded once, however many ops and loads use it")
{
    load(reluOp());
    const auto loaded = ScriptedReference::loadedModuleCount();
    load(reluOp());
    Op renamed = reluOp();
    renamed.name = "kb/test/relu_again";
    load(renamed);
    CHECK(ScriptedReference::loadedModuleCount() == loaded);
}

TEST_CASE("each op gets the reference it carries")
{
    auto x = ramp(10, -2.0f, 0.5f);
    std::vector<float> out(10);

    // An imported op whose name no built-in reference has.
    const Op imported = reluOp();
    CHECK_FALSE(Reference::has(imported.name));
    CHECK(Reference::has(imported));
    auto scripted = Reference::forOp(imported, -1);
    REQUIRE(scripted.hasValue());
    REQUIRE((*scripted)->run({hostView(x)}, {hostView(out)}).isOk());
    CHECK(out[0] == 0.0f);
    CHECK(out[9] == x[9]);

    // A built-in op is looked up by name.
    Op builtIn;
    builtIn.name = "relu";
    CHECK(Reference::has(builtIn));
    auto named = Reference::forOp(builtIn, -1);
    REQUIRE(named.hasValue());
    std::fill(out.begin(), out.end(), -1.0f);
    REQUIRE((*named)->run({hostView(x)}, {hostView(out)}).isOk());
    CHECK(out[0] == 0.0f);
    CHECK(out[9] == x[9]);
    CHECK((*named)->runEager({hostView(x)}).isOk());

    // A module wins over the name: an imported op may share a built-in op's name.
    Op shadowing = importedOp("raises", referenceModule("raises"), {{"x", {"N"}}}, {{"out", {"N"}}});
    shadowing.name = "relu";
    auto shadowed = Reference::forOp(shadowing, -1);
    REQUIRE(shadowed.hasValue());
    CHECK_FALSE((*shadowed)->run({hostView(x)}, {hostView(out)}).isOk());

    Op unknown;
    unknown.name = "no-such-op";
    CHECK_FALSE(Reference::has(unknown));
    const auto missing = Reference::forOp(unknown, -1);
    REQUIRE_FALSE(missing.hasValue());
    CHECK(missing.error().message.find("no LibTorch reference for op 'no-such-op'") != std::string::npos);

    // A broken module is an error from forOp, not later.
    const auto broken = Reference::forOp(reluOp("@@@@"), -1);
    REQUIRE_FALSE(broken.hasValue());
    CHECK(broken.error().message.find("is not valid base64") != std::string::npos);
}
