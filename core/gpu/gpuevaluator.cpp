#include "core/gpu/gpuevaluator.h"

#include "core/domain/domainjson.h"
#include "core/eval/baselinebook.h"
#include "core/eval/baselinechild.h"
#include "core/eval/protocol.h"
#include "core/gpu/baselinebenchmark.h"
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
#include "core/plan/launchplan.h"
#include "core/util/clock.h"
#include "core/util/hash.h"

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

std::string times(double ratio)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3gx", ratio);
    return text;
}

// "1.2x vs eager (0.1 ms vs 0.12 ms), 0.8x vs Inductor (0.08 ms)"
std::string comparisonText(const Evaluation &evaluation)
{
    std::string text = milliseconds(evaluation.timing.medianMs);
    if (evaluation.speedup > 0)
        text += "; " + times(evaluation.speedup) + " vs eager (" + milliseconds(evaluation.baseline.medianMs) + ")";
    const auto *inductor = findBaseline(evaluation.baselines, BaselineKind::Inductor);
    if (const auto overInductor = speedupOverInductor(evaluation))
        text += ", " + times(*overInductor) + " vs Inductor (" + milliseconds(inductor->timing.medianMs) + ")";
    else if (inductor)
        text += "; no Inductor time: " + inductor->error.substr(0, 200);
    return text + " [" + toString(evaluation.precision) + "]";
}

} // namespace

class GpuEvaluator::Private
{
public:
    void evaluate(const EvaluateRequest &request, Evaluation &evaluation);
    /// The baselines to compare this request's candidate with: measured now when the book says so.
    std::vector<BaselineMeasurement> baselinesFor(const EvaluateRequest &request,
                                                  const std::shared_ptr<OpReference> &reference);
    BaselineMeasurement measureEager(const EvaluateRequest &request, const std::shared_ptr<OpReference> &reference);
    BaselineMeasurement measureInductor(const EvaluateRequest &request);

    GpuEvaluator::BusyNotice busy;
    BaselineBook baselineBook;
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
    d->busy = busy;
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
            return fail(EvalStatus::PlanError,
                        "launch plan, shape set " + shapeSetText(shapes) + ": " + one.error().message);
        resolved.push_back(std::move(*one));
    }

    const auto &info = device->info();
    const auto &settings = request.settings;
    evaluation.precision = settings.precision;
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
    // Measured before the candidate's memory is allocated: at KernelBench's sizes the device holds one at a time.
    const auto baselines = baselinesFor(request, *reference);
    const auto *eager = findBaseline(baselines, BaselineKind::Eager);
    const Tf32Scope tf32(allowsTf32(settings.precision)); // for the candidate's library steps

    ShapeRigs rigs(op.shapeSets.size(), [&](std::size_t i) {
        return ShapeRig{need(PlanLauncher::prepare(*module, resolved[i])),
                        need(ShapeWorkspace::create(op, op.shapeSets[i], resolved[i], device->index(), *reference))};
    });

    phases.prepareMs = msSince(phaseStart);
    phaseStart = std::chrono::steady_clock::now();
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
    evaluation.timing = summarize(timing.candidateMs);
    evaluation.timing.wallMedianMs = summarize(timing.candidateWallMs).medianMs;
    // The eager measurement's samples stay in the measurement (the archive keeps them once per baseline).
    evaluation.baselines = baselines;
    if (eager && eager->usable())
        evaluation.baseline = eager->timing;
    if (!timing.failure.empty()) {
        evaluation.correctness.failure = timing.failure;
        evaluation.correctness.checksPassed.clear();
        return fail(EvalStatus::Incorrect, timing.failure);
    }
    evaluation.correctness.checksPassed.push_back("timed-outputs");
    evaluation.correctness.timingInputSets = timing.inputSets;
    if (!timing.note.empty())
        evaluation.correctness.inputs.push_back(timing.note);
    if (evaluation.timing.medianMs > 0 && evaluation.baseline.medianMs > 0)
        evaluation.speedup = evaluation.baseline.medianMs / evaluation.timing.medianMs;

    TimingEvidence evidence{evaluation.timing, evaluation.baseline, evaluation.speedup, std::nullopt};
    if (auto floor = rooflineFloor(op, info, settings.precision))
        evidence.floor = *floor;
    else
        evaluation.flags.push_back({"no-floor", nlohmann::json{{"error", floor.error().message}}.dump()});
    for (auto &flag : timingFlags(evidence, settings))
        evaluation.flags.push_back(std::move(flag));

    evaluation.status = EvalStatus::Correct;
    fail(EvalStatus::Correct, "correct; " + comparisonText(evaluation));
}

std::vector<BaselineMeasurement> GpuEvaluator::Private::baselinesFor(const EvaluateRequest &request,
                                                                     const std::shared_ptr<OpReference> &reference)
{
    const auto key = BaselineBook::keyFor(request);
    if (baselineBook.needsMeasurement(key, request.settings, nowMs())) {
        if (busy)
            busy(request.settings.baselineTimeoutMs, "measuring the baselines of " + request.op.name);
        std::vector<BaselineMeasurement> measured{measureEager(request, reference)};
        TensorOps::releaseCachedMemory();
        const auto &inductor = request.settings.inductor;
        if (!inductor.command.empty() || !inductor.unavailable.empty())
            measured.push_back(measureInductor(request));
        for (auto &measurement : measured) {
            measurement.uid = randomHexId();
            measurement.gpu = device->info();
            measurement.runId = request.candidate.runId;
            measurement.opName = request.op.name;
            measurement.precision = request.settings.precision;
        }
        baselineBook.record(key, measured, nowMs());
    }
    baselineBook.countEvaluation(key);
    return baselineBook.current(key);
}

BaselineMeasurement GpuEvaluator::Private::measureEager(const EvaluateRequest &request,
                                                        const std::shared_ptr<OpReference> &reference)
{
    const Op &op = request.op;
    try {
        auto workspace =
            need(ShapeWorkspace::create(op, op.shapeSets.front(), ResolvedPlan{}, device->index(), reference));
        return BaselineBenchmark(op, request.settings, *timer)
            .run(*workspace, *reference, BaselineKind::Eager, baselinemethod::kLibTorchEager);
    } catch (const CudaFailure &) {
        throw; // the device is in trouble: the evaluation says so
    } catch (const std::exception &error) {
        BaselineMeasurement failed;
        failed.kind = BaselineKind::Eager;
        failed.method = baselinemethod::kLibTorchEager;
        failed.createdAtMs = nowMs();
        failed.error = std::string("eager baseline: ") + error.what();
        return failed;
    }
}

BaselineMeasurement GpuEvaluator::Private::measureInductor(const EvaluateRequest &request)
{
    const Op &op = request.op;
    const auto &settings = request.settings;
    const auto tolerance = checkTolerance(op, settings, op.shapeSets.front());
    nlohmann::json childRequest{{"op", op},
                                {"shapeSet", 0},
                                {"precision", toString(settings.precision)},
                                {"seed", settings.seed},
                                {"inputSeed", CandidateBenchmark::timingInputsSeed(settings)},
                                {"warmupRuns", settings.warmupRuns},
                                {"timedRuns", settings.timedRuns},
                                {"timeBudgetMs", settings.timeBudgetMs},
                                {"l2Bytes", device->info().l2Bytes},
                                {"atol", tolerance.atol},
                                {"rtol", tolerance.rtol},
                                {"settings", settings}};
    return runBaselineChild(settings.inductor,
                            childRequest.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                            device->index(), settings.baselineTimeoutMs);
}

std::unique_ptr<Evaluator> makeGpuEvaluator(int device)
{
    return std::make_unique<GpuEvaluator>(device);
}

} // namespace kx
