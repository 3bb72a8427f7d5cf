#include "core/search/stopcondition.h"

#include <functional>

namespace kx {
namespace {

class PredicateCondition : public StopCondition
{
public:
    PredicateCondition(std::function<bool(const SearchProgress &)> predicate, std::string description)
        : m_predicate(std::move(predicate))
        , m_description(std::move(description))
    {}
    bool reached(const SearchProgress &progress) const override { return m_predicate(progress); }
    std::string describe() const override { return m_description; }

private:
    std::function<bool(const SearchProgress &)> m_predicate;
    std::string m_description;
};

} // namespace

std::unique_ptr<StopCondition> makeGenerationLimit(int generations)
{
    // Generation 0 is the translation; N generations of evolution follow it.
    return std::make_unique<PredicateCondition>(
        [generations](const SearchProgress &p) { return p.generation >= generations; },
        std::to_string(generations) + " generations");
}

std::unique_ptr<StopCondition> makeCandidateLimit(int candidates)
{
    return std::make_unique<PredicateCondition>(
        [candidates](const SearchProgress &p) { return p.evaluated >= candidates; },
        std::to_string(candidates) + " candidates");
}

std::unique_ptr<StopCondition> makeTimeLimit(double seconds)
{
    return std::make_unique<PredicateCondition>(
        [seconds](const SearchProgress &p) { return p.elapsedSeconds >= seconds; },
        std::to_string(int(seconds)) + " s");
}

std::unique_ptr<StopCondition> makeNoImprovementLimit(int generations)
{
    return std::make_unique<PredicateCondition>(
        [generations](const SearchProgress &p) { return p.generationsWithoutImprovement >= generations; },
        "no improvement for " + std::to_string(generations) + " generations");
}

} // namespace kx
