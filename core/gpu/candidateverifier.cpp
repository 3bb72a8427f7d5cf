#include "core/gpu/candidateverifier.h"

#include "core/gpu/precisionaudit.h"
#include "core/gpu/timingflags.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace kx {
namespace {

// How often a trial's inputs are shrunk (16 times each) when the reference itself is not finite on them.
constexpr int kRescaleAttempts = 3;
constexpr double kRescaleStep = 1.0 / 16;

std::string scaleText(double scale)
{
    return "x1/" + std::to_string(static_cast<long long>(1.0 / scale + 0.5));
}

} // namespace

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

Distribution CandidateVerifier::distributionOf(int trial)
{
    const auto &order = trialDistributions();
    return order[std::size_t(trial) % order.size()];
}

VerificationOutcome CandidateVerifier::run(ShapeRigs &rigs)
{
    VerificationOutcome outcome;
    auto &report = outcome.report;
    const int trials = std::max(1, m_settings.trials);
    const auto shapeSets = std::max<std::size_t>(1, rigs.count());
    m_inputs.assign(std::size_t(trials), std::string());
    bool intact = true;
    // Trial t runs on shape set t mod n: the same trials, seeds and distributions in whichever order.
    for (std::size_t step = 1; step <= shapeSets && intact; ++step) {
        const auto shapeIndex = step % shapeSets;
        for (int trial = int(shapeIndex); trial < trials && intact; trial += int(shapeSets))
            intact = runTrial(trial, shapeIndex, rigs.at(shapeIndex), outcome);
    }
    // Special values last, on the default shape set (whose rig timing uses next).
    if (intact && report.failure.empty())
        runSpecialValuesTrial(trials, rigs.at(0), outcome);
    (void)rigs.at(0); // what timing runs on

    report.shapeSets = int(m_shapeSetsUsed.size());
    for (auto &text : m_inputs)
        if (!text.empty())
            report.inputs.push_back(std::move(text));
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

double CandidateVerifier::prepareInputs(ShapeWorkspace &workspace, std::uint64_t seed, Distribution distribution,
                                        std::string &inputsText)
{
    double scale = 1;
    need(workspace.generateInputs(seed, distribution, scale));
    need(workspace.runReference());
    inputsText = toString(distribution);
    if (workspace.referenceFinite() || !need(workspace.inputsFinite()))
        return scale;
    // The reference overflowed on finite inputs (a deep product, an exp): an honest kernel that rounds or
    // orders differently may overflow elsewhere or not at all. Shrink the inputs until the reference is finite.
    for (int attempt = 0; attempt < kRescaleAttempts; ++attempt) {
        scale *= kRescaleStep;
        need(workspace.generateInputs(seed, distribution, scale));
        need(workspace.runReference());
        if (workspace.referenceFinite()) {
            inputsText += " " + scaleText(scale) + " (the reference was not finite at full scale)";
            return scale;
        }
    }
    inputsText += " (the reference is not finite even at " + scaleText(scale)
                  + ": NaN and infinities must match it position by position)";
    return scale;
}

bool CandidateVerifier::runTrial(int trial, std::size_t shapeIndex, ShapeRig &rig, VerificationOutcome &outcome)
{
    auto &report = outcome.report;
    auto &workspace = *rig.workspace;
    const auto tolerance = checkTolerance(m_op, m_settings, workspace.shapes());
    const double policyAtol = tolerance.atol;
    const double rtol = tolerance.rtol;
    const auto distribution = distributionOf(trial);
    m_shapeSetsUsed.insert(shapeIndex);
    m_distributionsUsed.insert(distribution);
    auto &inputsText = m_inputs.at(std::size_t(trial));
    const auto fail = [&](const std::string &what) {
        if (report.failure.empty())
            report.failure = "trial " + std::to_string(trial) + " (" + workspace.shapesText() + ", " + inputsText
                             + " inputs): " + what;
    };
    const auto accumulate = [&](const ShapeWorkspace::OutputCheck &check) {
        report.maxAbsError = std::max(report.maxAbsError, check.maxAbsError);
        report.maxRelError = std::max(report.maxRelError, check.maxRelError);
        report.mismatches += check.mismatches;
        if (!check.failure.empty())
            fail(check.failure);
    };

    const double scale = prepareInputs(workspace, trialSeed(m_settings.seed, trial), distribution, inputsText);
    // Large inputs, and sorted or ramp rows, make large partial sums: see trialAtol(). NaN, infinities and gross
    // errors still fail.
    const double atol = trialAtol(policyAtol, rtol, distribution, scale, workspace.referenceScale());
    workspace.copyInputsForCandidate();
    ++report.trials;

    rig.runCandidate(2 * trial);
    if (const auto broken = need(workspace.checkIntegrity())) {
        fail(*broken);
        return false;
    }
    workspace.keepFirstRun();
    accumulate(checkTrialOutputs(workspace, atol, rtol, inputsText));
    if (trial == 0 && report.failure.empty())
        auditPrecision(workspace, outcome);

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
            outcome.flags.push_back({"nondeterministic", nlohmann::json{{"trial", trial},
                                                                        {"shapes", workspace.shapesText()},
                                                                        {"maxAbsDifference", again.maxAbsError}}
                                                             .dump()});
        }
        accumulate(checkTrialOutputs(workspace, atol, rtol, inputsText));
    }

    if (workspace.previousTrial() >= 0) {
        m_sensitivityChecked = true;
        if (need(workspace.outputsSameAsPrevious()) && !workspace.referenceSameAsPrevious()) {
            outcome.flags.push_back({"input-insensitive", nlohmann::json{{"trials", {workspace.previousTrial(), trial}},
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

ShapeWorkspace::OutputCheck CandidateVerifier::checkTrialOutputs(ShapeWorkspace &workspace, double atol, double rtol,
                                                                 std::string &inputsText)
{
    auto check = need(workspace.checkOutputs(atol, rtol));
    if (check.mismatches == 0)
        return check;
    const bool tf32 = allowsTf32(m_settings.precision);
    auto exact = workspace.checkAgainstExact(atol, rtol, tf32);
    if (!exact)
        return check; // no float64 reference: the fp32 verdict stands
    const auto miss = [](const ShapeWorkspace::OutputCheck &c) { return ExactMiss{c.mismatches, c.maxAbsError}; };
    const auto against = describeExactMisses(miss(exact->candidate), miss(exact->baseline),
                                             tf32 ? "eager with TF32" : "the fp32 reference");
    if (!passesOnExactAnswer(miss(exact->candidate), miss(exact->baseline))) {
        check.failure += "; " + against;
        return check;
    }
    inputsText += " (ill-conditioned: " + against + ")";
    return {exact->candidate.maxAbsError, exact->candidate.maxRelError, 0, {}};
}

void CandidateVerifier::auditPrecision(ShapeWorkspace &workspace, VerificationOutcome &outcome)
{
    PrecisionAudit audit;
    const auto candidate = need(workspace.outputSample(kAuditSamples));
    const auto fp32 = need(workspace.referenceSample(kAuditSamples));
    if (auto exact = workspace.exactSample(kAuditSamples)) {
        audit.candidate = measureErrors(candidate, *exact);
        audit.fp32Reference = measureErrors(fp32, *exact);
        // Eager's own TF32 products are what the policy admits: the flag measures the candidate against them too.
        // Where eager cannot run again, the fp32 reference and the arithmetic alone set the limit.
        if (allowsTf32(m_settings.precision))
            if (auto eager = workspace.tf32EagerSample(kAuditSamples))
                audit.policyReference = measureErrors(*eager, *exact);
    } else {
        audit.unavailable = exact.error().message;
    }
    if (auto flag = reducedPrecisionFlag(audit, m_settings.precision))
        outcome.flags.push_back(std::move(*flag));
    outcome.report.precisionAudit = std::move(audit);
}

void CandidateVerifier::runSpecialValuesTrial(int trial, ShapeRig &rig, VerificationOutcome &outcome)
{
    auto &report = outcome.report;
    auto &workspace = *rig.workspace;
    const auto tolerance = checkTolerance(m_op, m_settings, workspace.shapes());
    need(workspace.generateInputs(trialSeed(m_settings.seed, trial), Distribution::Special));
    need(workspace.runReference());
    workspace.copyInputsForCandidate();
    ++report.trials;
    rig.runCandidate(2 * trial);
    // Damage to inputs or guards is a failure on any inputs.
    if (const auto broken = need(workspace.checkIntegrity())) {
        report.failure =
            "trial " + std::to_string(trial) + " (" + workspace.shapesText() + ", special-values inputs): " + *broken;
        return;
    }
    // How an op treats NaN, infinities and subnormals is often left open (fmaxf(x, 0) gives 0 for NaN, relu
    // gives NaN; flush-to-zero drops subnormals): differences are evidence in the report, not a failure, and
    // not a flag either (every fmaxf relu would wait for review).
    const auto check = need(workspace.checkOutputs(tolerance.atol, tolerance.rtol));
    m_inputs.push_back(
        std::string(toString(Distribution::Special))
        + (check.mismatches > 0 ? " (differs from the reference: " + check.failure + ")" : " (matches the reference)"));
}

} // namespace kx
