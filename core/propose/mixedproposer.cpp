#include "core/propose/mixedproposer.h"

#include <stdexcept>

namespace kx {
namespace {

// splitmix64 of the seed with its own constant: independent of how the engine uses the same seed.
double unitFromSeed(std::uint64_t seed)
{
    std::uint64_t z = seed + 0x6a09e667f3bcc909ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return double(z >> 11) * (1.0 / 9007199254740992.0);
}

} // namespace

MixedProposer::MixedProposer(std::vector<Entry> entries, std::size_t fallback)
    : m_entries(std::move(entries))
    , m_fallback(fallback)
{
    if (m_entries.empty() || m_fallback >= m_entries.size())
        throw std::invalid_argument("MixedProposer needs proposers and a valid fallback");
    for (const auto &entry : m_entries)
        m_totalWeight += std::max(0.0, entry.weight);
}

std::size_t MixedProposer::pick(std::uint64_t seed) const
{
    if (m_totalWeight <= 0)
        return m_fallback;
    double point = unitFromSeed(seed) * m_totalWeight;
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
        point -= std::max(0.0, m_entries[i].weight);
        if (point < 0)
            return i;
    }
    return m_entries.size() - 1;
}

std::string MixedProposer::cannotPropose(const Op &op) const
{
    std::string why;
    for (const auto &entry : m_entries) {
        const auto reason = entry.proposer->cannotPropose(op);
        if (reason.empty())
            return {};
        why += (why.empty() ? "" : "; ") + entry.proposer->name() + ": " + reason;
    }
    return why;
}

ProposalResult MixedProposer::propose(const ProposalRequest &request, std::stop_token stop)
{
    const std::size_t chosen = pick(request.seed);
    auto result = m_entries[chosen].proposer->propose(request, stop);
    if (!result.candidates.empty() || chosen == m_fallback || stop.stop_requested())
        return result;
    const std::string reason = m_entries[chosen].proposer->name() + " failed: " + result.failure;
    auto fallback = m_entries[m_fallback].proposer->propose(request, stop);
    for (auto &candidate : fallback.candidates) {
        CandidateProvenance provenance;
        provenance.proposer = m_entries[m_fallback].proposer->name();
        provenance.note = "fallback: " + reason;
        candidate.provenance = std::move(provenance);
    }
    if (fallback.candidates.empty())
        fallback.failure =
            reason + "; fallback " + m_entries[m_fallback].proposer->name() + " failed: " + fallback.failure;
    return fallback;
}

} // namespace kx
