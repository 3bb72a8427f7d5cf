#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace kx {

/// Where a search stands; stop conditions and progress displays read it.
struct SearchProgress
{
    int generation = 0; ///< The generation being worked on (0: translation).
    int proposed = 0;
    int evaluated = 0;
    int correct = 0;
    int failed = 0; ///< Evaluated but not correct.
    double bestSpeedup = 0;
    std::string bestCandidateId;
    double elapsedSeconds = 0;
    int generationsWithoutImprovement = 0;
};

/// Decides when a search ends (checked after each generation).
class StopCondition
{
public:
    virtual ~StopCondition() = default;
    virtual bool reached(const SearchProgress &progress) const = 0;
    virtual std::string describe() const = 0;
};

std::unique_ptr<StopCondition> makeGenerationLimit(int generations);
std::unique_ptr<StopCondition> makeCandidateLimit(int candidates);
std::unique_ptr<StopCondition> makeTimeLimit(double seconds);
std::unique_ptr<StopCondition> makeNoImprovementLimit(int generations);

} // namespace kx
