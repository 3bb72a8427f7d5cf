#include "core/gpu/candidatebenchmark.h"

#include "core/gpu/candidateverifier.h"
#include "core/gpu/devicebuffer.h"
#include "core/gpu/timingflags.h"
#include "core/gpu/timingsets.h"

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

std::uint64_t CandidateBenchmark::inputSetSeed(const EvalSettings &settings, int set)
{
    // Set 0 is what the baselines are timed on.
    return set == 0 ? timingInputsSeed(settings) : CandidateVerifier::trialSeed(settings.seed, (1 << 20) + set);
}

BenchmarkOutcome CandidateBenchmark::run(ShapeRig &rig)
{
    BenchmarkOutcome outcome;
    auto &workspace = *rig.workspace;
    const auto tolerance = checkTolerance(m_op, m_settings, workspace.shapes());
    const int requested = std::max(1, m_settings.timingInputSets);
    const int sets =
        timingSetsThatFit(requested, DeviceBuffer::freeDeviceBytes(), workspace.inputBytes(), workspace.outputBytes());
    outcome.inputSets = sets;
    if (sets < requested)
        outcome.note = "timing: " + std::to_string(sets) + " input set" + (sets == 1 ? "" : "s") + " of "
                       + std::to_string(requested) + " requested (the GPU's free memory holds no more)";

    // Every set's reference is computed first and kept sealed, one slot each.
    for (int set = 0; set < sets; ++set) {
        need(workspace.generateInputs(inputSetSeed(m_settings, set), Distribution::Normal));
        need(workspace.runReference(set));
    }
    int current = sets == 1 ? 0 : -1; // the set in the candidate's inputs (set 0 is there after the loop above)
    if (sets == 1)
        workspace.copyInputsForCandidate();
    const auto useSet = [&](int set) {
        if (set == current)
            return;
        need(workspace.generateInputs(inputSetSeed(m_settings, set), Distribution::Normal));
        workspace.copyInputsForCandidate();
        current = set;
    };

    const auto bindings = workspace.bindings();
    int round = 0;
    const auto timeCandidate = [&] {
        useSet(round % sets);
        workspace.prepareRun(round++);
        return m_timer.time([&] { rig.launcher.launch(bindings); });
    };
    // Every run's outputs, warmups included, are checked outside the timed region against the reference of
    // the set it ran on: a kernel that is right only sometimes (a race, a stale read that the first runs got
    // lucky with), or that replays an earlier answer, fails here. Outputs bit-identical to ones already
    // checked against the same set's reference need no comparison of their own.
    const auto checkRun = [&](const std::string &which) {
        const int set = current;
        const std::string where = which + ", input set " + std::to_string(set + 1) + " of " + std::to_string(sets)
                                  + ", " + workspace.shapesText();
        if (sets > 1) {
            if (const auto broken = need(workspace.checkIntegrity())) {
                outcome.failure = "timed runs (" + where + "): " + *broken;
                return false;
            }
        }
        if (need(workspace.sameAsVerified(set)))
            return true;
        const auto check = need(workspace.checkOutputs(tolerance.atol, tolerance.rtol, set));
        if (!check.failure.empty()) {
            outcome.failure = "timed runs (" + where + "): " + check.failure;
            return false;
        }
        workspace.keepVerified(set);
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

    // With one set the inputs stayed the candidate's own through every run: one look at the end sees any change.
    if (sets == 1) {
        if (const auto broken = need(workspace.checkIntegrity()))
            outcome.failure = "timed runs: " + *broken;
    }
    return outcome;
}

} // namespace kx
