#include "core/gpu/baselinebenchmark.h"

#include "core/gpu/candidatebenchmark.h"
#include "core/gpu/shaperig.h"
#include "core/gpu/tensorops.h"
#include "core/gpu/timingflags.h"
#include "core/util/clock.h"

#include <chrono>

namespace kx {

BaselineBenchmark::BaselineBenchmark(const Op &op, const EvalSettings &settings, RunTimer &timer)
    : m_op(op)
    , m_settings(settings)
    , m_timer(timer)
{}

BaselineMeasurement BaselineBenchmark::run(ShapeWorkspace &workspace, OpReference &baseline, BaselineKind kind,
                                           const std::string &method)
{
    BaselineMeasurement measurement;
    measurement.kind = kind;
    measurement.method = method;
    measurement.opName = m_op.name;
    measurement.precision = m_settings.precision;
    measurement.createdAtMs = nowMs();

    need(workspace.generateInputs(CandidateBenchmark::timingInputsSeed(m_settings), Distribution::Normal));
    need(workspace.runReference());
    // The reference above computed in fp32; the baseline runs as the policy lets PyTorch run.
    const Tf32Scope tf32(allowsTf32(m_settings.precision));
    if (Status ran = workspace.runIntoOutputs(baseline); !ran) {
        measurement.error = ran.error().message;
        return measurement;
    }
    const auto tolerance = checkTolerance(m_op, m_settings, workspace.shapes());
    const auto check = need(workspace.checkOutputs(tolerance.atol, tolerance.rtol));
    measurement.maxAbsError = check.maxAbsError;
    measurement.maxRelError = check.maxRelError;
    if (!check.failure.empty()) {
        measurement.error = std::string(toString(kind)) + " baseline outside the " + toString(m_settings.precision)
                            + " tolerance: " + check.failure;
        return measurement;
    }

    const auto timeOnce = [&] { return m_timer.time([&] { need(baseline.runEager(workspace.pristineInputs())); }); };
    const auto warmupStart = std::chrono::steady_clock::now();
    const int warmups = std::max(1, m_settings.warmupRuns);
    for (int i = 0; i < warmups; ++i)
        timeOnce();
    const double warmupMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - warmupStart).count() / warmups;
    const int runs = CandidateBenchmark::timedRunCount(m_settings, warmupMs);
    for (int i = 0; i < runs; ++i) {
        const TimedRun run = timeOnce();
        measurement.samplesMs.push_back(run.eventMs);
        measurement.wallSamplesMs.push_back(run.wallMs);
    }
    measurement.timing = summarize(measurement.samplesMs);
    measurement.timing.wallMedianMs = summarize(measurement.wallSamplesMs).medianMs;
    return measurement;
}

} // namespace kx
