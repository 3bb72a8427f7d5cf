#pragma once

#include "core/propose/chatclient.h"
#include "core/propose/promptbuilder.h"
#include "core/search/proposer.h"

#include <memory>

namespace kx {

class CostLedger;

/**
 * Asks a language model for candidates: builds the prompt for the request's operator, sends it through
 * the ChatClient, parses and checks the answer. Every candidate carries its provenance (model, full
 * prompt and hash, raw answer, tokens, estimated cost); failures say why (network, refusal, format).
 */
class LlmProposer : public Proposer
{
public:
    /// @p ledger (shared, may be null) adds up tokens and cost of every call, failed ones included.
    LlmProposer(ChatClient client, PromptBuilder prompts, std::shared_ptr<CostLedger> ledger = {});

    std::string name() const override { return "llm"; }
    ProposalResult propose(const ProposalRequest &request, std::stop_token stop) override;

private:
    ChatClient m_client;
    PromptBuilder m_prompts;
    std::shared_ptr<CostLedger> m_ledger;
};

} // namespace kx
