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
    std::vector<double> candidateMs;     ///< GPU event time of every timed run.
    std::vector<double> candidateWallMs; ///< Host wall clock of the same runs.
    int checkedRuns = 0;                 ///< Runs whose outputs matched the reference (all, when no failure).
    int inputSets = 0;                   ///< Input sets the runs cycled through.
    std::string note;                    ///< Why there were fewer input sets than asked for; empty if not.
    std::string failure;                 ///< A run's outputs, or the inputs, were wrong.
};

/**
 * Times a verified candidate on the default shape set: warmups, then at least settings.timedRuns runs (fewer,
 * but at least 10, when that would exceed the time budget). The runs cycle through settings.timingInputSets
 * input sets in the same buffers (refilled before each run, outside the timed region), so that a kernel that
 * keys a memoized answer on its buffers or replays its last one is caught. Outputs are NaN-filled and scratch
 * refilled before every run, and every run's outputs are compared, outside the timed region, with the
 * reference of the set it ran on; the inputs are checked after every run. The baselines are timed apart,
 * once per run and GPU (see BaselineBenchmark), on the first set (timingInputsSeed()).
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
    /// The seed of timing input set `set` (set 0: timingInputsSeed()).
    static std::uint64_t inputSetSeed(const EvalSettings &settings, int set);
    /// How many timed runs fit the budget after warmups that took pairMs each.
    static int timedRunCount(const EvalSettings &settings, double warmupMs);

private:
    const Op &m_op;
    EvalSettings m_settings;
    RunTimer &m_timer; // Not owned
};

} // namespace kx
