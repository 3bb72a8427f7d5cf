#pragma once

#include "core/propose/responseparser.h"
#include "core/search/proposer.h"

namespace kx {

/// A candidate for request from a parsed answer: origin, parents and operator follow the request's kind,
/// the provenance records who made it. No genome: the template proposer cannot vary it by parameters.
Candidate makeProposedCandidate(const ProposalRequest &request, const ParsedCandidate &parsed,
                                CandidateProvenance provenance);

} // namespace kx
