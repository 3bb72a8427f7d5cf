#pragma once

#include "core/domain/evaluation.h"
#include "core/domain/op.h"
#include "core/eval/evalrequest.h"
#include "core/gpu/shaperig.h"

#include <cstdint>
#include <set>
#include <vector>

namespace kx {

struct VerificationOutcome
{
    CorrectnessReport report;               ///< report.failure is empty when every check passed.
    std::vector<Flag> flags;                ///< "input-insensitive", "nondeterministic"
};

/**
 * Checks a candidate against the reference over settings.trials trials, cycling through the shape sets
 * and input distributions, each trial with fresh inputs from its own seed. Trials run grouped by shape
 * set, the first (default) set last, so that its rig is the one alive for timing afterwards. Every trial runs the candidate
 * twice (different scratch garbage) and checks inputs unchanged, guard zones intact, outputs within
 * tolerance, the two runs equal, and the outputs different from the last trial on the same shapes.
 */
class CandidateVerifier
{
public:
    CandidateVerifier(const Op &op, const EvalSettings &settings);

    /// Throws CudaFailure / LibraryStepFailure from the candidate's runs, std::runtime_error from the harness.
    VerificationOutcome run(ShapeRigs &rigs);

    /// The seed of a trial: distinct for every trial of every base seed.
    static std::uint64_t trialSeed(std::uint64_t base, int trial);

private:
    /// Runs one trial; false when it found inputs or guard zones damaged (nothing after it can be trusted).
    bool runTrial(int trial, std::size_t shapeIndex, ShapeRig &rig, VerificationOutcome &outcome);

    const Op &m_op;
    EvalSettings m_settings;
    // What the trials found, across shape sets.
    std::set<std::size_t> m_shapeSetsUsed;
    std::set<Distribution> m_distributionsUsed;
    bool m_deterministic = true;
    bool m_sensitivityChecked = false;
    bool m_nondeterminismFlagged = false;
};

} // namespace kx
