#include "core/propose/candidatemaker.h"

#include "core/util/hash.h"

namespace kx {

Candidate makeProposedCandidate(const ProposalRequest &request, const ParsedCandidate &parsed,
                                CandidateProvenance provenance)
{
    Candidate candidate;
    candidate.opName = request.op.name;
    candidate.source = parsed.source;
    candidate.launchPlan = parsed.launchPlan;
    switch (request.kind) {
    case ProposalKind::Translate: candidate.origin = Origin::Translated; break;
    case ProposalKind::Mutate:
    case ProposalKind::Repair: candidate.origin = Origin::Mutated; break;
    case ProposalKind::Crossover: candidate.origin = Origin::Crossover; break;
    }
    for (const auto &parent : request.parents)
        candidate.parentIds.push_back(parent.candidate.id);
    candidate.operatorName = provenance.proposer + "-" + toString(request.kind);
    candidate.description = parsed.description.empty()
                                ? provenance.proposer + " " + toString(request.kind) + " (" + provenance.model + ")"
                                : parsed.description;
    if (provenance.promptSha256.empty())
        provenance.promptSha256 = sha256Hex(provenance.prompt);
    candidate.provenance = std::move(provenance);
    candidate.id = makeCandidateId(candidate.source, candidate.launchPlan);
    return candidate;
}

} // namespace kx
