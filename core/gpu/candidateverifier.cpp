#include "core/gpu/candidateverifier.h"

#include "core/gpu/timingflags.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace kx {

CandidateVerifier::CandidateVerifier(const Op &op, const EvalSettings &settings)
    : m_op(op)
    , m_settings(settings)
{}

std::uint64_t CandidateVerifier::trialSeed(std::uint64_t base, int trial)
{
    // splitmix64 of (base, trial): neighbouring bases and trials give unrelated seeds.
    std::uint64_t z = base + 0x9E3779B97F4A7C15ull * std::uint64_t(trial + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

constexpr double kWideInputScale = 100;

VerificationOutcome CandidateVerifier::run(ShapeRigs &rigs)
{
    VerificationOutcome outcome;
    auto &report = outcome.report;
    const int trials = std::max(1, m_settings.trials);
    const auto shapeSets = std::max<std::size_t>(1, rigs.count());
    bool intact = true;
    // Trial t runs on shape set t mod n: the same trials, seeds and distributions in whichever order.
    for (std::size_t step = 1; step <= shapeSets && intact; ++step) {
        const auto shapeIndex = step % shapeSets;
        for (int trial = int(shapeIndex); trial < trials && intact; trial += int(shapeSets))
            intact = runTrial(trial, shapeIndex, rigs.at(shapeIndex), outcome);
    }
    (void)rigs.at(0); // what timing runs on

    report.shapeSets = int(m_shapeSetsUsed.size());
    if (report.failure.empty()) {
        report.checksPassed = {"inputs-unchanged", "in-bounds-writes", "matches-reference"};
        if (m_deterministic)
            report.checksPassed.push_back("deterministic");
        if (m_sensitivityChecked)
            report.checksPassed.push_back("input-sensitive");
        report.checksPassed.push_back("distributions:" + std::to_string(m_distributionsUsed.size()));
    }
    return outcome;
}

bool CandidateVerifier::runTrial(int trial, std::size_t shapeIndex, ShapeRig &rig, VerificationOutcome &outcome)
{
    auto &report = outcome.report;
    auto &workspace = *rig.workspace;
    const auto tolerance = checkTolerance(m_op, m_settings, workspace.shapes());
    const double policyAtol = tolerance.atol;
    const double rtol = tolerance.rtol;
    const auto distribution = static_cast<Distribution>(trial % 3);
    m_shapeSetsUsed.insert(shapeIndex);
    m_distributionsUsed.insert(distribution);
    const auto fail = [&](const std::string &what) {
        if (report.failure.empty())
            report.failure = "trial " + std::to_string(trial) + " (" + workspace.shapesText() + ", "
                             + toString(distribution) + " inputs): " + what;
    };
    const auto accumulate = [&](const ShapeWorkspace::OutputCheck &check) {
        report.maxAbsError = std::max(report.maxAbsError, check.maxAbsError);
        report.maxRelError = std::max(report.maxRelError, check.maxRelError);
        report.mismatches += check.mismatches;
        if (!check.failure.empty())
            fail(check.failure);
    };

    need(workspace.generateInputs(trialSeed(m_settings.seed, trial), distribution));
    need(workspace.runReference());
    // Wide inputs reach about 100 times the size of normal ones, and so does fp32 rounding in any sum of them:
    // the absolute tolerance follows. Sums of products grow with the square (a matmul's partial sums reach
    // millions), and summing them in another order changes the last bits of those partial sums: there the
    // absolute tolerance is rtol of the outputs' RMS. NaN, infinities and gross errors still fail.
    const double atol = distribution == Distribution::Wide
                            ? std::max(kWideInputScale * policyAtol, rtol * need(workspace.referenceScale()))
                            : policyAtol;
    workspace.copyInputsForCandidate();
    ++report.trials;

    rig.runCandidate(2 * trial);
    if (const auto broken = need(workspace.checkIntegrity())) {
        fail(*broken);
        return false;
    }
    workspace.keepFirstRun();
    accumulate(need(workspace.checkOutputs(atol, rtol)));

    // The second run sees other scratch garbage: reading uninitialised memory shows up here too.
    rig.runCandidate(2 * trial + 1);
    if (const auto broken = need(workspace.checkIntegrity())) {
        fail(*broken);
        return false;
    }
    if (!need(workspace.sameAsFirstRun())) {
        m_deterministic = false;
        const auto again = need(workspace.compareWithFirstRun(atol, rtol));
        if (again.mismatches > 0) {
            fail("not deterministic: " + again.failure);
        } else if (!m_nondeterminismFlagged) {
            m_nondeterminismFlagged = true;
            outcome.flags.push_back({"nondeterministic",
                                     nlohmann::json{{"trial", trial},
                                                    {"shapes", workspace.shapesText()},
                                                    {"maxAbsDifference", again.maxAbsError}}
                                         .dump()});
        }
        accumulate(need(workspace.checkOutputs(atol, rtol)));
    }

    if (workspace.previousTrial() >= 0) {
        m_sensitivityChecked = true;
        if (need(workspace.outputsSameAsPrevious()) && !need(workspace.referenceSameAsPrevious())) {
            outcome.flags.push_back({"input-insensitive",
                                     nlohmann::json{{"trials", {workspace.previousTrial(), trial}},
                                                    {"shapes", workspace.shapesText()}}
                                         .dump()});
            fail("input-insensitive: the outputs are bit-identical to those of trial "
                 + std::to_string(workspace.previousTrial())
                 + " although the inputs and the reference's outputs differ");
        }
    }
    workspace.keepAsPrevious(trial);
    return true;
}

} // namespace kx
