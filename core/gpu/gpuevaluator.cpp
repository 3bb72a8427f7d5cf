#include "core/gpu/gpuevaluator.h"

#include "core/eval/launchplan.h"
#include "core/gpu/candidatebenchmark.h"
#include "core/gpu/candidateverifier.h"
#include "core/gpu/cudaerror.h"
#include "core/gpu/cudamodule.h"
#include "core/gpu/gpudevice.h"
#include "core/gpu/reference.h"
#include "core/gpu/runtimer.h"
#include "core/gpu/shaperig.h"
#include "core/gpu/tensorops.h"
#include "core/gpu/timingflags.h"
#include "core/util/clock.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <optional>

namespace kx {
namespace {

std::string shapeSetText(const ShapeSet &shapes)
{
    std::string text;
    for (const auto &[symbol, size] : shapes)
        text += (text.empty() ? "" : ", ") + symbol + "=" + std::to_string(size);
    return "{" + text + "}";
}

double msSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

std::string milliseconds(double ms)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.4g ms", ms);
    return text;
}

} // namespace

class GpuEvaluator::Private
{
public:
    void evaluate(const EvaluateRequest &request, Evaluation &evaluation);

    std::optional<GpuDevice> device;
    std::unique_ptr<RunTimer> timer;
    std::string unavailable;
    Phases phases;
};

GpuEvaluator::GpuEvaluator(int device)
    : d(std::make_unique<Private>())
{
    auto opened = GpuDevice::open(device);
    if (!opened) {
        d->unavailable = opened.error().message;
        return;
    }
    if (!TensorOps::haveTorch()) {
        d->unavailable = "this build has no LibTorch: candidates cannot be checked against references";
        return;
    }
    if (!TensorOps::haveCuda()) {
        d->unavailable = "LibTorch " + TensorOps::torchVersion() + " cannot use the GPU (a CPU-only build?)";
        return;
    }
    try {
        d->device = std::move(*opened);
        d->device->setMeasuredBandwidth(d->device->measureCopyBandwidthGBs());
        d->timer = std::make_unique<RunTimer>(d->device->info().l2Bytes);
    } catch (const std::exception &error) {
        d->device.reset();
        d->timer.reset();
        d->unavailable = std::string("GPU unusable: ") + error.what();
    }
}

GpuEvaluator::~GpuEvaluator() = default;

GpuInfo GpuEvaluator::describe()
{
    return d->device ? d->device->info() : GpuInfo{};
}

std::string GpuEvaluator::unavailableReason() const
{
    return d->device ? std::string() : d->unavailable;
}

const GpuEvaluator::Phases &GpuEvaluator::lastPhases() const
{
    return d->phases;
}

EvaluateOutcome GpuEvaluator::evaluate(const EvaluateRequest &request)
{
    EvaluateOutcome outcome;
    auto &evaluation = outcome.evaluation;
    evaluation.candidateId = request.candidate.id;
    evaluation.runId = request.candidate.runId;
    evaluation.compile = request.compile;
    evaluation.gpu = describe();
    evaluation.createdAtMs = nowMs();
    if (!d->device) {
        evaluation.status = EvalStatus::Crashed;
        evaluation.message = d->unavailable;
        return outcome;
    }

    // A sticky error keeps failing every call; a non-sticky one is cleared by cudaContextUsable().
    bool sticky = false;
    try {
        d->evaluate(request, evaluation);
    } catch (const CudaFailure &failure) {
        sticky = isStickyError(failure.code()) || !cudaContextUsable();
        evaluation.status = sticky ? EvalStatus::Fault : EvalStatus::LaunchError;
        evaluation.message = failure.what();
    } catch (const LibraryStepFailure &failure) {
        sticky = !cudaContextUsable();
        evaluation.status = sticky ? EvalStatus::Fault : EvalStatus::LaunchError;
        evaluation.message = failure.what();
    } catch (const std::exception &error) {
        sticky = !cudaContextUsable();
        evaluation.status = sticky ? EvalStatus::Fault : EvalStatus::Crashed;
        evaluation.message = std::string("evaluation failed: ") + error.what();
    }
    // Reference and library steps leave LibTorch's cache full; our own buffers come straight from the driver.
    if (!sticky)
        TensorOps::releaseCachedMemory();
    if (sticky) {
        outcome.workerMustExit = true;
        evaluation.samplesMs.clear();
        evaluation.baselineSamplesMs.clear();
        evaluation.wallSamplesMs.clear();
        evaluation.baselineWallSamplesMs.clear();
        evaluation.speedup = 0;
        d->timer.reset();
        d->device.reset();
        d->unavailable = "the CUDA context is unusable after an earlier fault: " + evaluation.message;
    }
    return outcome;
}

void GpuEvaluator::Private::evaluate(const EvaluateRequest &request, Evaluation &evaluation)
{
    phases = {};
    auto phaseStart = std::chrono::steady_clock::now();
    const Op &op = request.op;
    const auto fail = [&](EvalStatus status, std::string message) {
        evaluation.status = status;
        evaluation.message = std::move(message);
    };
    if (!Reference::has(op))
        return fail(EvalStatus::Crashed, "no LibTorch reference for op '" + op.name + "' in this worker");
    if (op.shapeSets.empty())
        return fail(EvalStatus::PlanError, "op '" + op.name + "' defines no shape sets");
    // Loaded before anything is compiled or launched: a broken reference module fails here with its reason.
    auto reference = Reference::forOp(op, device->index());
    if (!reference)
        return fail(EvalStatus::Crashed, reference.error().message);

    const auto plan = parseLaunchPlan(request.candidate.launchPlan);
    if (!plan)
        return fail(EvalStatus::PlanError, "launch plan: " + plan.error().message);
    const auto kernels = parseKernelSignatures(request.candidate.source);
    std::vector<ResolvedPlan> resolved;
    for (const auto &shapes : op.shapeSets) {
        auto one = resolveLaunchPlan(*plan, op, shapes, kernels, device->limits());
        if (!one)
            return fail(EvalStatus::PlanError, "launch plan, shape set " + shapeSetText(shapes) + ": "
                                                   + one.error().message);
        resolved.push_back(std::move(*one));
    }

    const auto &info = device->info();
    std::unique_ptr<CudaModule> module;
    try {
        module = std::make_unique<CudaModule>(request.cubin);
    } catch (const CudaFailure &failure) {
        throw CudaFailure(failure.code(), std::string(failure.what()) + " (compiled for " + request.arch
                                              + ", the GPU has compute capability " + info.computeCapability + ")");
    }

    // Everything that can be wrong with the plan on any shape set is found before memory is allocated.
    for (std::size_t i = 0; i < op.shapeSets.size(); ++i) {
        if (auto launcher = PlanLauncher::prepare(*module, resolved[i]); !launcher)
            return fail(EvalStatus::PlanError, launcher.error().message);
        if (auto layouts = ShapeWorkspace::checkLayouts(op, op.shapeSets[i]); !layouts)
            return fail(EvalStatus::PlanError, "op '" + op.name + "': " + layouts.error().message);
    }
    ShapeRigs rigs(op.shapeSets.size(), [&](std::size_t i) {
        return ShapeRig{need(PlanLauncher::prepare(*module, resolved[i])),
                        need(ShapeWorkspace::create(op, op.shapeSets[i], resolved[i], device->index(), *reference))};
    });

    phases.prepareMs = msSince(phaseStart);
    phaseStart = std::chrono::steady_clock::now();
    const auto &settings = request.settings;
    auto verification = CandidateVerifier(op, settings).run(rigs);
    evaluation.correctness = std::move(verification.report);
    evaluation.flags = std::move(verification.flags);
    phases.checkMs = msSince(phaseStart);
    if (!evaluation.correctness.failure.empty())
        return fail(EvalStatus::Incorrect, evaluation.correctness.failure);

    phaseStart = std::chrono::steady_clock::now();
    auto timing = CandidateBenchmark(op, settings, *timer).run(rigs.at(0));
    phases.timingMs = msSince(phaseStart);
    evaluation.samplesMs = timing.candidateMs;
    evaluation.wallSamplesMs = timing.candidateWallMs;
    evaluation.baselineWallSamplesMs = timing.baselineWallMs;
    evaluation.timing = summarize(timing.candidateMs);
    evaluation.timing.wallMedianMs = summarize(timing.candidateWallMs).medianMs;
    evaluation.baselineSamplesMs = timing.baselineMs;
    evaluation.baseline = summarize(timing.baselineMs);
    evaluation.baseline.wallMedianMs = summarize(timing.baselineWallMs).medianMs;
    if (!timing.failure.empty()) {
        evaluation.correctness.failure = timing.failure;
        evaluation.correctness.checksPassed.clear();
        return fail(EvalStatus::Incorrect, timing.failure);
    }
    evaluation.correctness.checksPassed.push_back("timed-outputs");
    if (evaluation.timing.medianMs > 0)
        evaluation.speedup = evaluation.baseline.medianMs / evaluation.timing.medianMs;

    TimingEvidence evidence{evaluation.timing, evaluation.baseline, evaluation.speedup, std::nullopt};
    if (auto floor = rooflineFloor(op, op.shapeSets.front(), info.measuredBandwidthGBs, info.peakTflops))
        evidence.floor = *floor;
    else
        evaluation.flags.push_back({"no-floor", nlohmann::json{{"error", floor.error().message}}.dump()});
    for (auto &flag : timingFlags(evidence, settings))
        evaluation.flags.push_back(std::move(flag));

    char speedup[32];
    std::snprintf(speedup, sizeof speedup, "%.3gx", evaluation.speedup);
    fail(EvalStatus::Correct, std::string("correct; ") + speedup + " vs PyTorch eager ("
                                  + milliseconds(evaluation.timing.medianMs) + " vs "
                                  + milliseconds(evaluation.baseline.medianMs) + ")");
}

std::unique_ptr<Evaluator> makeGpuEvaluator(int device)
{
    return std::make_unique<GpuEvaluator>(device);
}

} // namespace kx
