#pragma once

#include "core/propose/promptbuilder.h"
#include "core/propose/proposersettings.h"
#include "core/search/proposer.h"

namespace kx {

/**
 * Asks an external program for candidates: the prompt goes to its stdin, the candidate (same format as a
 * model's answer) comes from its stdout. A non-zero exit, a timeout or unusable output is a failure whose
 * reason includes the end of its stderr.
 */
class CommandProposer : public Proposer
{
public:
    CommandProposer(CommandSettings settings, PromptBuilder prompts);

    std::string name() const override { return "command"; }
    ProposalResult propose(const ProposalRequest &request, std::stop_token stop) override;

private:
    CommandSettings m_settings;
    PromptBuilder m_prompts;
};

} // namespace kx
