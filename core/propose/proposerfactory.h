#pragma once

#include "core/propose/costledger.h"
#include "core/propose/proposersettings.h"
#include "core/search/proposer.h"
#include "core/util/expected.h"

#include <functional>
#include <memory>

namespace kx {

class ConcurrencyLimit;

/// What a run's proposers share: the limit on model requests in flight and the cost ledger.
struct ProposerResources
{
    std::shared_ptr<ConcurrencyLimit> limit;
    std::shared_ptr<CostLedger> ledger;

    /// Also marks the API key's variable (settings.llm.apiKeyEnv) as a secret no child process gets.
    static ProposerResources forSettings(const ProposerSettings &settings);
};

/// Checks settings before a run starts (kind, endpoint, model, command, prompt folder, share).
Status checkProposerSettings(const ProposerSettings &settings);

/// The proposer the settings describe: "template", "llm", "command" or "mix" (template plus the LLM, or the
/// command when no model is given, with the LLM share). An Error says what is missing.
Expected<std::unique_ptr<Proposer>> makeProposer(const ProposerSettings &settings, const ProposerResources &resources);

/// What a search session calls for its proposer (SearchSessionOptions::makeProposer), for kx and the GUI alike: one
/// made from the settings, sharing the resources; null where the settings make none (checkProposerSettings says why
/// before a run starts). The settings, API key included, live in the function and nowhere else.
std::function<std::unique_ptr<Proposer>()> proposerMaker(ProposerSettings settings, ProposerResources resources);

} // namespace kx
