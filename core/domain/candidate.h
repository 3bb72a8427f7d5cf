#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kx {

/// How a candidate came to be.
enum class Origin { Translated, Mutated, Crossover, Manual, Imported };

/// Who made a candidate and what it cost: kept for candidates from language models and external commands.
struct CandidateProvenance
{
    std::string proposer; ///< "llm", "command" or "template" (a fallback).
    std::string model;    ///< Model name or command line.
    std::string prompt;   ///< The full prompt as sent.
    std::string promptSha256;
    std::string response; ///< The raw response.
    std::int64_t promptTokens = 0;
    std::int64_t completionTokens = 0;
    double cost = 0;  ///< Estimated from the user's prices per 1M tokens.
    std::string note; ///< e.g. why a fallback proposer made it.

    bool operator==(const CandidateProvenance &) const = default;
};

/**
 * A candidate kernel: device-only CUDA C++ plus a declarative launch plan (JSON text).
 * Its id is the content hash of source and plan, so the same kernel is stored once.
 */
struct Candidate
{
    std::string id; ///< contentHash(source, launchPlan); set by makeCandidateId().
    std::string opName;
    std::string source;
    std::string launchPlan; ///< JSON text, see core/plan/launchplan.h.
    Origin origin = Origin::Translated;
    std::vector<std::string> parentIds; ///< Ordered: first parent first (crossover has two).
    std::string operatorName;           ///< e.g. "block-size", "crossover", "translate".
    std::string description;            ///< Human-readable: what changed and why.
    std::optional<std::int64_t> runId;
    std::int64_t createdAtMs = 0;
    std::string genome; ///< JSON: how a proposer can regenerate/vary it (not hashed).
    /// Set by LLM and command proposers; Archive::addCandidate stores it, Archive::provenance() reads it.
    std::optional<CandidateProvenance> provenance;

    bool operator==(const Candidate &) const = default;
};

/// The content hash that identifies a candidate (SHA-256 hex over source and plan).
std::string makeCandidateId(const std::string &source, const std::string &launchPlan);

const char *toString(Origin origin);
Origin originFromString(const std::string &text); ///< Throws std::invalid_argument.

} // namespace kx
