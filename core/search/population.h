#pragma once

#include "core/search/proposer.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kx {

/// Deterministic random numbers for selection (the same on every platform, unlike std distributions).
class SplitMix
{
public:
    explicit SplitMix(std::uint64_t seed)
        : m_state(seed)
    {}
    std::uint64_t next();
    /// Uniform in [0, bound).
    std::uint64_t below(std::uint64_t bound) { return bound ? next() % bound : 0; }
    /// Uniform in [0, 1).
    double unit() { return double(next() >> 11) * 0x1.0p-53; }

private:
    std::uint64_t m_state;
};

/// Mixes the run seed with a generation and slot into a request seed.
std::uint64_t deriveSeed(std::uint64_t runSeed, int generation, int slot);

/**
 * A run's candidates with their results. Failed and incorrect candidates stay (they are evidence and
 * keep duplicates out) but are never chosen as parents.
 */
class Population
{
public:
    /// Adds or updates a candidate; a later evaluation replaces an earlier one only if it is better.
    void add(const Candidate &candidate, int generation);
    void setEvaluation(const std::string &candidateId, const Evaluation &evaluation);

    bool contains(const std::string &candidateId) const { return m_members.count(candidateId) > 0; }
    std::size_t size() const { return m_members.size(); }
    const ScoredCandidate *find(const std::string &candidateId) const;
    int generationOf(const std::string &candidateId) const;

    /// Breedable candidates with their fitness, best first (fitness, then id for determinism), at most limit.
    std::vector<ScoredCandidate> elite(std::size_t limit) const;
    /// The best breedable candidate, if any.
    std::optional<ScoredCandidate> best() const;
    /// Candidates that have no evaluation yet, in insertion order.
    std::vector<Candidate> unevaluated() const;
    /// Every candidate in insertion order.
    std::vector<ScoredCandidate> all() const;
    /// The most recent failures (not correct), newest first: repair material.
    std::vector<ScoredCandidate> failures(std::size_t limit) const;

    /**
     * A correct candidate's speedup over the median of all eager times the run measured on its GPU (0 when not
     * correct). Eager PyTorch is timed anew in every evaluation and for small ops spreads several-fold: ranked
     * by its own speedup, a slow kernel that met a slow eager run would beat faster ones.
     */
    double fitness(const ScoredCandidate &scored) const;

private:
    ScoredCandidate withFitness(ScoredCandidate scored) const;

    struct Member
    {
        ScoredCandidate scored;
        int generation = 0;
        std::size_t order = 0;
    };
    std::map<std::string, Member> m_members;
    std::map<std::string, std::vector<double>> m_eagerMs; ///< Per GPU, every eager time of a correct evaluation.
    std::map<std::string, double> m_medianEagerMs;        ///< Per GPU, their median (kept current as they come).
};

/// Picks the fitter of `size` random entrants (tournament selection); pool must not be empty.
const ScoredCandidate &tournament(const std::vector<ScoredCandidate> &pool, SplitMix &random, int size = 2);

} // namespace kx
