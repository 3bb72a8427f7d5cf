#pragma once

#include "core/domain/candidate.h"
#include "core/domain/evaluation.h"
#include "core/domain/op.h"
#include "core/domain/verdict.h"

#include <optional>
#include <string>
#include <vector>

namespace kx::ui {

/// Everything the detail views show about one candidate, read in one background job.
struct CandidateDetails
{
    Candidate candidate; ///< With its provenance, when a model or command made it.
    std::optional<Op> op;
    std::string opSourceText; ///< The op's original source (e.g. a KernelBench module), if stored.
    std::vector<Evaluation> evaluations;
    std::vector<Verdict> verdicts; ///< Oldest first, retracted ones included.
    std::optional<Verdict> currentVerdict;
};

} // namespace kx::ui
