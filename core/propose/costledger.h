#pragma once

#include <cstdint>
#include <mutex>

namespace kx {

/// Tokens and estimated cost of every model call in a session, failed calls included (the archive only
/// sees the calls that produced a stored candidate). Thread-safe.
class CostLedger
{
public:
    struct Totals
    {
        std::int64_t calls = 0;
        std::int64_t failedCalls = 0;
        std::int64_t promptTokens = 0;
        std::int64_t completionTokens = 0;
        double cost = 0;
    };

    CostLedger(double pricePromptPerMillion = 0, double priceCompletionPerMillion = 0);

    /// The estimated cost of one call: never negative (negative counts and prices count as 0).
    double cost(std::int64_t promptTokens, std::int64_t completionTokens) const;
    /// Records a call and returns its estimated cost.
    double record(std::int64_t promptTokens, std::int64_t completionTokens, bool usable);
    Totals totals() const;

private:
    double m_pricePrompt;
    double m_priceCompletion;
    mutable std::mutex m_mutex;
    Totals m_totals;
};

} // namespace kx
