#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace kx {

/// A person's judgement of a candidate. The newest verdict of a candidate is the one in force.
struct Verdict
{
    std::int64_t id = 0;
    std::string candidateId;
    bool accepted = false;
    std::string reasonCode; ///< One of verdictReasonCodes().
    std::string note;
    std::int64_t createdAtMs = 0;
    bool retracted = false; ///< Undone by the reviewer; kept as history.

    bool operator==(const Verdict &) const = default;
};

/// The reason codes a reviewer can choose from.
const std::vector<std::string> &verdictReasonCodes();

/// The reason a rejection most likely has, from the kinds of flag the candidate's evaluations carry: what the
/// GUI preselects and what `kx verdict --reject` records when no reason is given.
std::string likelyRejectReason(const std::set<std::string> &flagKinds);

} // namespace kx
