#pragma once

#include "core/domain/op.h"
#include "core/eval/evalrequest.h"
#include "core/gpu/runtimer.h"
#include "core/gpu/shaperig.h"

#include <string>
#include <vector>

namespace kx {

struct BenchmarkOutcome
{
    std::vector<double> candidateMs;        ///< GPU event time of every timed run.
    std::vector<double> candidateWallMs;    ///< Host wall clock of the same runs.
    int checkedRuns = 0;                    ///< Runs whose outputs matched the reference (all, when no failure).
    std::string failure;                    ///< A run's outputs, or the inputs, were wrong.
};

/**
 * Times a verified candidate on the default shape set: warmups, then at least settings.timedRuns runs (fewer,
 * but at least 10, when that would exceed the time budget). Outputs are NaN-filled and scratch refilled before
 * every run, and every run's outputs are compared with the reference outside the timed region; the inputs are
 * checked at the end. The baselines are timed apart, once per run and GPU (see BaselineBenchmark), on the same
 * inputs (timingInputsSeed()).
 */
class CandidateBenchmark
{
public:
    CandidateBenchmark(const Op &op, const EvalSettings &settings, RunTimer &timer);

    /// Throws CudaFailure / LibraryStepFailure from the candidate, std::runtime_error from the harness.
    BenchmarkOutcome run(ShapeRig &rig);

    static constexpr int kMinimumRuns = 10;
    /// The seed of the timing inputs: unlike any trial's, the same for candidates and baselines.
    static std::uint64_t timingInputsSeed(const EvalSettings &settings);
    /// How many timed runs fit the budget after warmups that took pairMs each.
    static int timedRunCount(const EvalSettings &settings, double warmupMs);

private:
    const Op &m_op;
    EvalSettings m_settings;
    RunTimer &m_timer; // Not owned
};

} // namespace kx
