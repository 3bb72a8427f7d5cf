#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kx {

/// How a candidate came to be.
enum class Origin { Translated, Mutated, Crossover, Manual, Imported };

/**
 * A candidate kernel: device-only CUDA C++ plus a declarative launch plan (JSON text).
 * Its id is the content hash of source and plan, so the same kernel is stored once.
 */
struct Candidate
{
    std::string id;                         ///< contentHash(source, launchPlan); set by makeCandidateId().
    std::string opName;
    std::string source;
    std::string launchPlan;                 ///< JSON text, see core/eval/launchplan.h.
    Origin origin = Origin::Translated;
    std::vector<std::string> parentIds;     ///< Ordered: first parent first (crossover has two).
    std::string operatorName;               ///< e.g. "block-size", "crossover", "translate".
    std::string description;                ///< Human-readable: what changed and why.
    std::optional<std::int64_t> runId;
    std::int64_t createdAtMs = 0;
    std::string genome;                     ///< JSON: how a proposer can regenerate/vary it (not hashed).

    bool operator==(const Candidate &) const = default;
};

/// The content hash that identifies a candidate (SHA-256 hex over source and plan).
std::string makeCandidateId(const std::string &source, const std::string &launchPlan);

const char *toString(Origin origin);
Origin originFromString(const std::string &text); ///< Throws std::invalid_argument.

} // namespace kx
