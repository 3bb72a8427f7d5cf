// torch.compile (Inductor) as the second baseline, on the GPU: an AOTInductor package is built for a catalog op
// and for an imported problem file, loaded and timed in `kx baseline-runner` beside the eager baseline, and an op
// whose export fails falls back to torch.compile timed in Python; a broken op's Inductor baseline is reported in
// the evidence while the candidate is still evaluated. Needs a GPU and a Python with PyTorch 2.6 or newer.
#include "gputestsupport.h"

#include "core/baseline/inductorpackager.h"
#include "core/eval/pythonhelper.h"
#include "core/eval/sandbox.h"
#include "core/kernelbench/problemimporter.h"
#include "core/ops/builtinops.h"
#include "core/search/templateproposer.h"
#include "temporarydir.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

using namespace kx;

namespace {

const std::string kData = std::string(KX_TEST_DATA_DIR) + "/kernelbench/";

void skipWithoutPython()
{
    if (const auto python = findPythonWithTorch(); !python) {
        std::cout << "skipped: " << python.error().message << '\n';
        std::exit(77);
    }
}

const test::TemporaryDir &cacheDir()
{
    static const test::TemporaryDir dir;
    return dir;
}

InductorPreparation prepare(const Op &op)
{
    InductorPackager::Options options;
    options.cacheDir = cacheDir().path();
    // The op's Python runs confined where bubblewrap is installed (the GPU machine has none).
    options.sandbox = !findBubblewrap().empty();
    return InductorPackager(options).prepare(op, test::gpuArch(), 0,
                                             {std::string(KX_BINARY_DIR) + "/kx", "baseline-runner"});
}

// The op's translation evaluated with the prepared Inductor baseline; returns the evaluation.
Evaluation evaluateWith(const Op &op, const InductorBaselineSettings &inductor)
{
    const auto candidate = translateOp(op);
    REQUIRE_MESSAGE(candidate, (candidate ? "" : candidate.error().message));
    auto settings = test::quickSettings();
    settings.inductor = inductor;
    auto request = test::makeRequest(op, candidate->source, candidate->launchPlan, settings);
    request.candidate = *candidate;
    const auto outcome = test::gpuEvaluator().evaluate(request);
    const auto &evaluation = outcome.evaluation;
    const auto *eager = findBaseline(evaluation.baselines, BaselineKind::Eager);
    const auto *compiled = findBaseline(evaluation.baselines, BaselineKind::Inductor);
    std::printf("%-28s %-10s kernel %8.4f ms, eager %8.4f ms, inductor %s %8.4f ms (%s) %s\n", op.name.c_str(),
                test::statusText(evaluation.status).c_str(), evaluation.timing.medianMs,
                eager ? eager->timing.medianMs : 0.0, compiled ? compiled->method.c_str() : "-",
                compiled ? compiled->timing.medianMs : 0.0, compiled ? compiled->error.c_str() : "none",
                evaluation.message.c_str());
    CHECK_MESSAGE(test::statusText(evaluation.status) == "correct", evaluation.message);
    REQUIRE(eager);
    CHECK_MESSAGE(eager->usable(), eager->error);
    CHECK(eager->method == baselinemethod::kLibTorchEager);
    REQUIRE(compiled);
    return evaluation;
}

void requireInductorTimed(const Evaluation &evaluation, const char *method)
{
    const auto *compiled = findBaseline(evaluation.baselines, BaselineKind::Inductor);
    REQUIRE(compiled);
    CHECK_MESSAGE(compiled->usable(), compiled->error);
    CHECK(compiled->method == method);
    CHECK(compiled->timing.runs >= 10);
    CHECK(compiled->samplesMs.size() == std::size_t(compiled->timing.runs));
    CHECK(compiled->gpu.name == test::gpuEvaluator().describe().name);
    CHECK(speedupOverInductor(evaluation).has_value());
    CHECK(evaluation.message.find("vs Inductor") != std::string::npos);
}

} // namespace

TEST_CASE("a catalog op's Inductor package is built, loaded in its own process and timed like eager")
{
    if (!test::skipWithoutGpu())
        return;
    skipWithoutPython();
    const Op *op = findBuiltInOp("layer_norm");
    REQUIRE(op);
    const auto prepared = prepare(*op);
    INFO("details: ", prepared.settings.details, " unavailable: ", prepared.settings.unavailable);
    REQUIRE(prepared.package);
    CHECK(prepared.settings.method == baselinemethod::kAotiPackage);
    CHECK_FALSE(prepared.package->fromCache);
    const auto evaluation = evaluateWith(*op, prepared.settings);
    requireInductorTimed(evaluation, baselinemethod::kAotiPackage);

    // A second preparation finds the package in the cache.
    const auto again = prepare(*op);
    REQUIRE(again.package);
    CHECK(again.package->fromCache);
    CHECK(again.package->sha256 == prepared.package->sha256);
}

TEST_CASE("an imported problem file's Inductor package takes the model's parameters as inputs")
{
    if (!test::skipWithoutGpu())
        return;
    skipWithoutPython();
    ImportOptions options;
    options.device = "cuda";
    // The project's own problem file: unconfined where bubblewrap is missing (the GPU machine has none).
    options.sandbox = ProblemImporter::sandboxAvailable();
    const auto imported = ProblemImporter(options).importFile(kData + "linear_relu.py");
    REQUIRE_MESSAGE(imported, (imported ? "" : imported.error().message));
    REQUIRE(imported->translated());
    const auto prepared = prepare(imported->op);
    INFO("details: ", prepared.settings.details, " unavailable: ", prepared.settings.unavailable);
    REQUIRE(prepared.package);
    requireInductorTimed(evaluateWith(imported->op, prepared.settings), baselinemethod::kAotiPackage);
}

TEST_CASE("an op that does not export is timed as torch.compile in Python; a broken one is reported, not fatal")
{
    if (!test::skipWithoutGpu())
        return;
    skipWithoutPython();
    Op op = *findBuiltInOp("relu");
    // .item() on a tensor makes a data-dependent branch: torch.export refuses it, torch.compile breaks the graph.
    op.referenceSource = "import torch\n\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
                         "        if x.abs().max().item() >= 0:\n            return torch.relu(x)\n        return x\n";
    const auto fallback = prepare(op);
    INFO("details: ", fallback.settings.details);
    CHECK_FALSE(fallback.package);
    CHECK(fallback.settings.method == baselinemethod::kTorchCompile);
    CHECK(fallback.settings.details.find("export") != std::string::npos);
    requireInductorTimed(evaluateWith(op, fallback.settings), baselinemethod::kTorchCompile);

    Op broken = *findBuiltInOp("relu");
    // Same name: the worker finds its LibTorch reference by name; the package cache is keyed by the source too.
    broken.referenceSource = "import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x) return x\n";
    const auto nothing = prepare(broken);
    const auto evaluation = evaluateWith(broken, nothing.settings);
    const auto *compiled = findBaseline(evaluation.baselines, BaselineKind::Inductor);
    REQUIRE(compiled);
    CHECK_FALSE(compiled->usable());
    CHECK(compiled->error.find("does not load") != std::string::npos);
    CHECK(evaluation.speedup > 0); // compared with eager all the same
    CHECK_FALSE(speedupOverInductor(evaluation).has_value());
}
