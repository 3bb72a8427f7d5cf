#pragma once

#include "core/search/proposer.h"

#include <memory>
#include <vector>

namespace kx {

/**
 * Hands each request to one of several proposers, chosen by weight from the request's seed (so a run is
 * reproducible). When the chosen proposer comes back empty, the fallback proposer (e.g. the template one)
 * fills the slot, and its candidates record why in their provenance.
 */
class MixedProposer : public Proposer
{
public:
    struct Entry
    {
        std::unique_ptr<Proposer> proposer;
        double weight = 1;
    };

    /// @p fallback is the index of the entry that fills in for a failed one.
    MixedProposer(std::vector<Entry> entries, std::size_t fallback = 0);

    std::string name() const override { return "mix"; }
    ProposalResult propose(const ProposalRequest &request, std::stop_token stop) override;
    /// Empty when any of its proposers can propose for the op.
    std::string cannotPropose(const Op &op) const override;

    /// The entry a seed selects (for tests and for the record).
    std::size_t pick(std::uint64_t seed) const;

private:
    std::vector<Entry> m_entries;
    std::size_t m_fallback;
    double m_totalWeight = 0;
};

} // namespace kx
