#include "core/search/population.h"

#include <algorithm>

namespace kx {

bool ScoredCandidate::isBreedable() const
{
    if (!isCorrect())
        return false;
    return std::none_of(evaluation->flags.begin(), evaluation->flags.end(),
                        [](const Flag &flag) { return flag.kind == "impossible"; });
}

const char *toString(ProposalKind kind)
{
    switch (kind) {
    case ProposalKind::Translate: return "translate";
    case ProposalKind::Mutate: return "mutate";
    case ProposalKind::Crossover: return "crossover";
    case ProposalKind::Repair: return "repair";
    }
    return "unknown";
}

std::uint64_t SplitMix::next()
{
    std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

std::uint64_t deriveSeed(std::uint64_t runSeed, int generation, int slot)
{
    SplitMix mix(runSeed ^ (std::uint64_t(generation) << 32) ^ std::uint64_t(slot) * 0x2545f4914f6cdd1dULL);
    return mix.next();
}

namespace {
// Better: breedable first, then fitter, then the smaller id (deterministic ties).
bool better(const ScoredCandidate &a, const ScoredCandidate &b)
{
    if (a.isBreedable() != b.isBreedable())
        return a.isBreedable();
    if (a.fitness != b.fitness)
        return a.fitness > b.fitness;
    return a.candidate.id < b.candidate.id;
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const auto middle = values.size() / 2;
    return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}
} // namespace

void Population::add(const Candidate &candidate, int generation)
{
    if (m_members.count(candidate.id))
        return;
    m_members.emplace(candidate.id, Member{ScoredCandidate{candidate, std::nullopt}, generation, m_members.size()});
}

void Population::setEvaluation(const std::string &candidateId, const Evaluation &evaluation)
{
    const auto it = m_members.find(candidateId);
    if (it == m_members.end())
        return;
    if (evaluation.status == EvalStatus::Correct && evaluation.baseline.medianMs > 0) {
        auto &times = m_eagerMs[evaluation.gpu.name];
        times.push_back(evaluation.baseline.medianMs);
        m_medianEagerMs[evaluation.gpu.name] = median(times);
    }
    auto &scored = it->second.scored;
    const ScoredCandidate updated{scored.candidate, evaluation};
    if (!scored.evaluation || better(withFitness(updated), withFitness(scored)))
        scored.evaluation = evaluation;
}

double Population::fitness(const ScoredCandidate &scored) const
{
    if (!scored.isCorrect())
        return 0.0;
    const auto eager = m_medianEagerMs.find(scored.evaluation->gpu.name);
    const double kernelMs = scored.evaluation->timing.medianMs;
    if (eager == m_medianEagerMs.end() || kernelMs <= 0)
        return scored.speedup();
    return eager->second / kernelMs;
}

ScoredCandidate Population::withFitness(ScoredCandidate scored) const
{
    scored.fitness = fitness(scored);
    return scored;
}

const ScoredCandidate *Population::find(const std::string &candidateId) const
{
    const auto it = m_members.find(candidateId);
    return it == m_members.end() ? nullptr : &it->second.scored;
}

int Population::generationOf(const std::string &candidateId) const
{
    const auto it = m_members.find(candidateId);
    return it == m_members.end() ? -1 : it->second.generation;
}

std::vector<ScoredCandidate> Population::elite(std::size_t limit) const
{
    std::vector<ScoredCandidate> result;
    for (const auto &[id, member] : m_members)
        if (member.scored.isBreedable())
            result.push_back(withFitness(member.scored));
    std::sort(result.begin(), result.end(), better);
    if (result.size() > limit)
        result.resize(limit);
    return result;
}

std::optional<ScoredCandidate> Population::best() const
{
    auto top = elite(1);
    if (top.empty())
        return std::nullopt;
    return top.front();
}

std::vector<ScoredCandidate> Population::all() const
{
    std::vector<const Member *> ordered;
    for (const auto &[id, member] : m_members)
        ordered.push_back(&member);
    std::sort(ordered.begin(), ordered.end(), [](auto *a, auto *b) { return a->order < b->order; });
    std::vector<ScoredCandidate> result;
    for (const auto *member : ordered)
        result.push_back(member->scored);
    return result;
}

std::vector<Candidate> Population::unevaluated() const
{
    std::vector<Candidate> result;
    for (const auto &scored : all())
        if (!scored.evaluation)
            result.push_back(scored.candidate);
    return result;
}

std::vector<ScoredCandidate> Population::failures(std::size_t limit) const
{
    std::vector<ScoredCandidate> result;
    const auto everything = all();
    for (auto it = everything.rbegin(); it != everything.rend() && result.size() < limit; ++it)
        if (it->evaluation && !it->isCorrect())
            result.push_back(*it);
    return result;
}

const ScoredCandidate &tournament(const std::vector<ScoredCandidate> &pool, SplitMix &random, int size)
{
    const ScoredCandidate *winner = &pool[random.below(pool.size())];
    for (int i = 1; i < size; ++i) {
        const ScoredCandidate &entrant = pool[random.below(pool.size())];
        if (better(entrant, *winner))
            winner = &entrant;
    }
    return *winner;
}

} // namespace kx
