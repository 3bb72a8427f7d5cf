#include "core/gpu/candidatebenchmark.h"

#include "core/gpu/candidateverifier.h"

#include <algorithm>
#include <chrono>

namespace kx {

CandidateBenchmark::CandidateBenchmark(const Op &op, const EvalSettings &settings, RunTimer &timer)
    : m_op(op)
    , m_settings(settings)
    , m_timer(timer)
{}

BenchmarkOutcome CandidateBenchmark::run(ShapeRig &rig)
{
    BenchmarkOutcome outcome;
    auto &workspace = *rig.workspace;
    // Inputs of their own, unlike any trial's.
    need(workspace.generateInputs(CandidateVerifier::trialSeed(m_settings.seed, 1 << 20), Distribution::Normal));
    need(workspace.runReference());
    workspace.copyInputsForCandidate();

    const auto bindings = workspace.bindings();
    int round = 0;
    const auto timeCandidate = [&] {
        workspace.prepareRun(round++);
        return m_timer.time([&] { rig.launcher.launch(bindings); });
    };
    const auto timeReference = [&] {
        return m_timer.time([&] { need(workspace.runReferenceEager()); });
    };
    // Every run's outputs, warmups included, outside the timed region: a kernel that is right only
    // sometimes (a race, a stale read that the first runs got lucky with) fails here.
    // Outputs bit-identical to the first run's (checked in full) need no comparison of their own.
    bool firstChecked = false;
    const auto checkRun = [&](const std::string &which) {
        if (firstChecked && need(workspace.sameAsFirstRun()))
            return true;
        const auto check = need(workspace.checkOutputs(m_op.policy.atol, m_op.policy.rtol));
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
        timeReference();
        if (!checkRun("warmup " + std::to_string(i + 1) + " of " + std::to_string(warmups)))
            return outcome;
    }
    const double pairMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - warmupStart).count() / warmups;
    int runs = std::max(1, m_settings.timedRuns);
    if (pairMs * runs > m_settings.timeBudgetMs)
        runs = std::max(kMinimumRuns, int(m_settings.timeBudgetMs / std::max(pairMs, 1e-3)));

    for (int i = 0; i < runs; ++i) {
        // Alternating the order keeps any warm-after-the-other effect from favouring one side.
        TimedRun candidate;
        TimedRun reference;
        if (i % 2 == 0) {
            candidate = timeCandidate();
            reference = timeReference();
        } else {
            reference = timeReference();
            candidate = timeCandidate();
        }
        outcome.candidateMs.push_back(candidate.eventMs);
        outcome.candidateWallMs.push_back(candidate.wallMs);
        outcome.baselineMs.push_back(reference.eventMs);
        outcome.baselineWallMs.push_back(reference.wallMs);
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
