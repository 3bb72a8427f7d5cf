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
    std::vector<double> baselineMs;         ///< The reference, timed the same way, interleaved.
    std::vector<double> baselineWallMs;
    int checkedRuns = 0;                    ///< Runs whose outputs matched the reference (all, when no failure).
    std::string failure;                    ///< A run's outputs, or the inputs, were wrong.
};

/**
 * Times a verified candidate against the LibTorch reference on the default shape set: warmups, then
 * at least settings.timedRuns runs of each (fewer, but at least 10, when that would exceed the time
 * budget), alternating which goes first. Outputs are NaN-filled and scratch refilled before every
 * candidate run, and every run's outputs are compared with the reference outside the timed region;
 * the inputs are checked at the end.
 */
class CandidateBenchmark
{
public:
    CandidateBenchmark(const Op &op, const EvalSettings &settings, RunTimer &timer);

    /// Throws CudaFailure / LibraryStepFailure from the candidate, std::runtime_error from the harness.
    BenchmarkOutcome run(ShapeRig &rig);

    static constexpr int kMinimumRuns = 10;

private:
    const Op &m_op;
    EvalSettings m_settings;
    RunTimer &m_timer; // Not owned
};

} // namespace kx
