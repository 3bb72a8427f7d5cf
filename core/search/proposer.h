#pragma once

#include "core/domain/candidate.h"
#include "core/domain/evaluation.h"
#include "core/domain/op.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace kx {

/// A candidate with its best evaluation so far: the unit of selection.
struct ScoredCandidate
{
    Candidate candidate;
    std::optional<Evaluation> evaluation;
    /// How selection ranks it, higher is better: see Population::fitness(). Stepping stones of other runs
    /// carry their own speedup.
    double fitness = 0;

    bool isCorrect() const { return evaluation && evaluation->status == EvalStatus::Correct; }
    /// Correct, and no flag says its timing is physically impossible: fit to breed from.
    bool isBreedable() const;
    double speedup() const { return isCorrect() ? evaluation->speedup : 0.0; }
};

enum class ProposalKind {
    Translate, ///< A first kernel for the op (the seed decides among variants).
    Mutate,    ///< Change one aspect of one parent.
    Crossover, ///< Combine two parents.
    Repair,    ///< Fix a parent that failed to compile or verify.
};

const char *toString(ProposalKind kind);

struct ProposalRequest
{
    Op op;
    ProposalKind kind = ProposalKind::Translate;
    std::vector<ScoredCandidate> parents;        ///< None (translate), one (mutate, repair) or two (crossover).
    std::vector<ScoredCandidate> steppingStones; ///< Good kernels of earlier runs (the innovation archive).
    std::uint64_t seed = 0;                      ///< Derived from the run's seed, generation and slot.
    int generation = 0;                          ///< 0: the run's first translation.
    /// The run's precision policy: where it allows TF32, the first generation also tries plain TF32 products.
    Precision precision = Precision::Fp32;
    /// Whether a candidate of this id is in the run already (or earlier in this generation). A proposer that
    /// can choose looks past such children instead of handing back a duplicate. Empty: nothing is known.
    std::function<bool(const std::string &candidateId)> isKnown;

    bool knows(const std::string &candidateId) const { return isKnown && isKnown(candidateId); }
};

struct ProposalResult
{
    std::vector<Candidate> candidates; ///< With origin, parents, operator, description and genome set.
    std::string failure;               ///< Why nothing came back, when candidates is empty.
};

/**
 * Makes candidates: the offline template proposer, and later LLM and command proposers.
 * propose() runs on the engine's thread; a proposer that takes long should honour the stop token.
 */
class Proposer
{
public:
    virtual ~Proposer() = default;
    virtual std::string name() const = 0;
    virtual ProposalResult propose(const ProposalRequest &request, std::stop_token stop) = 0;
    /// Empty when the proposer can make kernels for the op at all, otherwise why not: a search that could only
    /// fail is refused before it starts.
    virtual std::string cannotPropose(const Op &) const { return {}; }
};

} // namespace kx
