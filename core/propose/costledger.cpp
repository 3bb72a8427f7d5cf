#include "core/propose/costledger.h"

namespace kx {

CostLedger::CostLedger(double pricePromptPerMillion, double priceCompletionPerMillion)
    : m_pricePrompt(pricePromptPerMillion), m_priceCompletion(priceCompletionPerMillion)
{
}

double CostLedger::cost(std::int64_t promptTokens, std::int64_t completionTokens) const
{
    return (double(promptTokens) * m_pricePrompt + double(completionTokens) * m_priceCompletion) / 1e6;
}

double CostLedger::record(std::int64_t promptTokens, std::int64_t completionTokens, bool usable)
{
    const double callCost = cost(promptTokens, completionTokens);
    std::lock_guard lock(m_mutex);
    ++m_totals.calls;
    if (!usable)
        ++m_totals.failedCalls;
    m_totals.promptTokens += promptTokens;
    m_totals.completionTokens += completionTokens;
    m_totals.cost += callCost;
    return callCost;
}

CostLedger::Totals CostLedger::totals() const
{
    std::lock_guard lock(m_mutex);
    return m_totals;
}

} // namespace kx
