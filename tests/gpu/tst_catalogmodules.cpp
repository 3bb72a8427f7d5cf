// The catalog's PyTorch modules (each op's reference source, which torch.compile compiles for the Inductor
// baseline) compute what its LibTorch references compute: the same inputs (same seeds, same generator) through
// both give the same outputs, compared by their sums, on the CPU. Needs LibTorch and a Python with PyTorch.
#include "core/baseline/inductorpackager.h"
#include "core/domain/domainjson.h"
#include "core/eval/pythonhelper.h"
#include "core/gpu/reference.h"
#include "core/gpu/tensorops.h"
#include "core/ops/builtinops.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <iostream>

using namespace kx;

namespace {

constexpr std::uint64_t kSeed = 12345;

// The outputs' sums of every catalog op at its second (small) shape set, from the Python modules.
nlohmann::json pythonSums()
{
    const auto python = findPythonWithTorch();
    const auto helper = InductorPackager::locateHelper();
    if (!TensorOps::haveTorch() || !python || !helper) {
        std::cout << "skipped: needs LibTorch, a Python with PyTorch and the helper ("
                  << (python ? helper ? "" : helper.error().message : python.error().message) << ")\n";
        std::exit(77);
    }
    nlohmann::json requests = nlohmann::json::array();
    for (const auto &op : builtInOps())
        requests.push_back({{"op", op}, {"shapeSet", 1}, {"inputSeed", kSeed}});
    const auto run = runHelper({*python, *helper, "check", "--device", "cpu"}, requests.dump(),
                               WorkerProcess::Clock::now() + std::chrono::minutes(5), {}, "the Inductor helper");
    REQUIRE_MESSAGE(run, (run ? "" : run.error().message));
    const auto answer = nlohmann::json::parse(run->lastLine, nullptr, false);
    REQUIRE_MESSAGE(answer.is_object(), run->stderrText);
    REQUIRE_MESSAGE(answer.value("ok", false), answer.dump());
    return answer.at("results");
}

// The same op through its LibTorch reference on host tensors filled as the worker fills them.
std::vector<double> referenceSums(const Op &op)
{
    const auto &shapes = op.shapeSets.at(1);
    const auto allocate = [&](const std::vector<TensorSpec> &specs, std::vector<std::vector<std::byte>> &memory) {
        std::vector<TensorView> views;
        for (const auto &spec : specs) {
            const auto layout = resolveLayout(spec, shapes);
            REQUIRE(layout);
            memory.emplace_back(std::size_t(layout->byteCount()));
            views.push_back(layout->view(memory.back().data(), -1));
        }
        return views;
    };
    std::vector<std::vector<std::byte>> inputMemory, outputMemory;
    inputMemory.reserve(op.inputs.size());
    outputMemory.reserve(op.outputs.size());
    const auto inputs = allocate(op.inputs, inputMemory);
    const auto outputs = allocate(op.outputs, outputMemory);
    for (std::size_t i = 0; i < inputs.size(); ++i)
        REQUIRE(TensorOps::fillRandom(inputs[i], kSeed * 64 + i, Distribution::Normal));
    const auto ran = Reference::run(op.name, inputs, outputs);
    REQUIRE_MESSAGE(ran, (ran ? "" : ran.error().message));
    std::vector<double> sums;
    for (const auto &output : outputs) {
        double sum = 0;
        for (std::int64_t i = 0; i < output.elementCount(); ++i)
            sum += output.dtype == DType::Int64 ? double(static_cast<const std::int64_t *>(output.data)[i])
                                                : double(static_cast<const float *>(output.data)[i]);
        sums.push_back(sum);
    }
    return sums;
}

} // namespace

TEST_CASE("every catalog op's PyTorch module computes what its LibTorch reference computes")
{
    const auto sums = pythonSums();
    REQUIRE(sums.size() == builtInOps().size());
    for (std::size_t k = 0; k < builtInOps().size(); ++k) {
        const Op &op = builtInOps()[k];
        CAPTURE(op.name);
        const auto expected = referenceSums(op);
        const auto &outputs = sums[k].at("outputs");
        REQUIRE(outputs.size() == expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            const double actual = outputs[i].at("sum").get<double>();
            CHECK(actual == doctest::Approx(expected[i]).epsilon(1e-4).scale(1.0));
        }
    }
}
