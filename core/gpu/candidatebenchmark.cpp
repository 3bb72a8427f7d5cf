#include "core/gpu/candidatebenchmark.h"

#include "core/gpu/candidateverifier.h"
#include "core/gpu/timingflags.h"

#include <algorithm>
#include <chrono>

namespace kx {

CandidateBenchmark::CandidateBenchmark(const Op &op, const EvalSettings &settings, RunTimer &timer)
    : m_op(op)
    , m_settings(settings)
    , m_timer(timer)
{}

std::uint64_t CandidateBenchmark::timingInputsSeed(const EvalSettings &settings)
{
    return CandidateVerifier::trialSeed(settings.seed, 1 << 20);
}

int CandidateBenchmark::timedRunCount(const EvalSettings &settings, double warmupMs)
{
    int runs = std::max(1, settings.timedRuns);
    if (warmupMs * runs > settings.timeBudgetMs)
        runs = std::max(kMinimumRuns, int(settings.timeBudgetMs / std::max(warmupMs, 1e-3)));
    return runs;
}

BenchmarkOutcome CandidateBenchmark::run(ShapeRig &rig)
{
    BenchmarkOutcome outcome;
    auto &workspace = *rig.workspace;
    need(workspace.generateInputs(timingInputsSeed(m_settings), Distribution::Normal));
    need(workspace.runReference());
    workspace.copyInputsForCandidate();
    const auto tolerance = checkTolerance(m_op, m_settings, workspace.shapes());

    const auto bindings = workspace.bindings();
    int round = 0;
    const auto timeCandidate = [&] {
        workspace.prepareRun(round++);
        return m_timer.time([&] { rig.launcher.launch(bindings); });
    };
    // Every run's outputs, warmups included, outside the timed region: a kernel that is right only
    // sometimes (a race, a stale read that the first runs got lucky with) fails here.
    // Outputs bit-identical to the first run's (checked in full) need no comparison of their own.
    bool firstChecked = false;
    const auto checkRun = [&](const std::string &which) {
        if (firstChecked && need(workspace.sameAsFirstRun()))
            return true;
        const auto check = need(workspace.checkOutputs(tolerance.atol, tolerance.rtol));
        if (!check.failure.empty()) {
            outcome.failure = "timed runs (" + which + ", " + workspace.shapesText() + "): " + check.failure;
            return false;
        }
        if (!firstChecked)
            workspace.keepFirstRun();
        firstChecked = true;
        return true;
    };

    const auto warmupStart = std::chrono::steady_clock::now();
    const int warmups = std::max(1, m_settings.warmupRuns);
    for (int i = 0; i < warmups; ++i) {
        timeCandidate();
        if (!checkRun("warmup " + std::to_string(i + 1) + " of " + std::to_string(warmups)))
            return outcome;
    }
    const double warmupMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - warmupStart).count() / warmups;
    const int runs = timedRunCount(m_settings, warmupMs);
    for (int i = 0; i < runs; ++i) {
        const TimedRun candidate = timeCandidate();
        outcome.candidateMs.push_back(candidate.eventMs);
        outcome.candidateWallMs.push_back(candidate.wallMs);
        if (!checkRun("run " + std::to_string(i + 1) + " of " + std::to_string(runs)))
            return outcome;
    }
    outcome.checkedRuns = warmups + runs;

    // The inputs stayed the candidate's own through every run: one look at the end sees any change.
    if (const auto broken = need(workspace.checkIntegrity()))
        outcome.failure = "timed runs: " + *broken;
    return outcome;
}

} // namespace kx
