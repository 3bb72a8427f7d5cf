#pragma once

#include "core/domain/evaluation.h"
#include "core/domain/op.h"
#include "core/eval/evalrequest.h"
#include "core/gpu/shaperig.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace kx {

struct VerificationOutcome
{
    CorrectnessReport report; ///< report.failure is empty when every check passed.
    /// "input-insensitive", "nondeterministic", "reduced-precision"
    std::vector<Flag> flags;
};

/**
 * Checks a candidate against the reference over settings.trials trials, cycling through the shape sets
 * and the input distributions of trialDistributions() (random and structured), each trial with fresh inputs
 * from its own seed. Trials run grouped by shape set, the first (default) set last, so that its rig is the
 * one alive for timing afterwards. Every trial runs the candidate twice (different scratch garbage) and
 * checks inputs unchanged, guard zones intact, outputs within tolerance, the two runs equal, and the outputs
 * different from the last trial on the same shapes. Where the reference itself is not finite on a trial's
 * inputs, they are shrunk until it is (an honest kernel is never rejected by a trial the reference fails).
 * Where a trial's outputs miss the reference, a float64 run of the reference decides (passesOnExactAnswer).
 * Trial 0 also measures the candidate's and the fp32 reference's errors against a float64 run of the
 * reference (PrecisionAudit). A last trial with special values (NaN, infinities, subnormals) reports
 * differences in the report's inputs, without failing.
 */
class CandidateVerifier
{
public:
    CandidateVerifier(const Op &op, const EvalSettings &settings);

    /// Throws CudaFailure / LibraryStepFailure from the candidate's runs, std::runtime_error from the harness.
    VerificationOutcome run(ShapeRigs &rigs);

    /// The seed of a trial: distinct for every trial of every base seed.
    static std::uint64_t trialSeed(std::uint64_t base, int trial);
    /// The input distribution of a trial.
    static Distribution distributionOf(int trial);

private:
    /// Runs one trial; false when it found inputs or guard zones damaged (nothing after it can be trusted).
    bool runTrial(int trial, std::size_t shapeIndex, ShapeRig &rig, VerificationOutcome &outcome);
    /// Draws a trial's inputs and runs the reference on them, shrunk where the reference is not finite.
    /// Returns the scale used; inputsText says what was drawn.
    double prepareInputs(ShapeWorkspace &workspace, std::uint64_t seed, Distribution distribution,
                         std::string &inputsText);
    /// The outputs against the fp32 reference; where they miss it, against the float64 answer
    /// (passesOnExactAnswer), which says so in inputsText when it lets the trial pass.
    ShapeWorkspace::OutputCheck checkTrialOutputs(ShapeWorkspace &workspace, double atol, double rtol,
                                                  std::string &inputsText);
    void auditPrecision(ShapeWorkspace &workspace, VerificationOutcome &outcome);
    void runSpecialValuesTrial(int trial, ShapeRig &rig, VerificationOutcome &outcome);

    const Op &m_op;
    EvalSettings m_settings;
    // What the trials found, across shape sets.
    std::set<std::size_t> m_shapeSetsUsed;
    std::set<Distribution> m_distributionsUsed;
    std::vector<std::string> m_inputs; // per trial: what its inputs were
    bool m_deterministic = true;
    bool m_sensitivityChecked = false;
    bool m_nondeterminismFlagged = false;
};

} // namespace kx
