#include "core/propose/costledger.h"

#include <algorithm>
#include <cmath>

namespace kx {

CostLedger::CostLedger(double pricePromptPerMillion, double priceCompletionPerMillion)
    : m_pricePrompt(pricePromptPerMillion)
    , m_priceCompletion(priceCompletionPerMillion)
{}

double CostLedger::cost(std::int64_t promptTokens, std::int64_t completionTokens) const
{
    // Counts come from a server: a negative one (or price) must not make a call earn money.
    const auto part = [](std::int64_t tokens, double price) {
        const double value = double(std::max<std::int64_t>(0, tokens)) * std::max(0.0, price) / 1e6;
        return std::isfinite(value) ? value : 0.0;
    };
    return part(promptTokens, m_pricePrompt) + part(completionTokens, m_priceCompletion);
}

double CostLedger::record(std::int64_t promptTokens, std::int64_t completionTokens, bool usable)
{
    const double callCost = cost(promptTokens, completionTokens);
    std::lock_guard lock(m_mutex);
    ++m_totals.calls;
    if (!usable)
        ++m_totals.failedCalls;
    m_totals.promptTokens += std::max<std::int64_t>(0, promptTokens);
    m_totals.completionTokens += std::max<std::int64_t>(0, completionTokens);
    m_totals.cost += callCost;
    return callCost;
}

CostLedger::Totals CostLedger::totals() const
{
    std::lock_guard lock(m_mutex);
    return m_totals;
}

} // namespace kx
