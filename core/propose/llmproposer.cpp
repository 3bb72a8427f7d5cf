#include "core/propose/llmproposer.h"

#include "core/propose/candidatemaker.h"
#include "core/propose/costledger.h"
#include "core/propose/responseparser.h"
#include "core/util/hash.h"

namespace kx {

LlmProposer::LlmProposer(ChatClient client, PromptBuilder prompts, std::shared_ptr<CostLedger> ledger)
    : m_client(std::move(client))
    , m_prompts(std::move(prompts))
    , m_ledger(std::move(ledger))
{
    if (!m_ledger)
        m_ledger = std::make_shared<CostLedger>(m_client.settings().pricePromptPerMillion,
                                                m_client.settings().priceCompletionPerMillion);
}

ProposalResult LlmProposer::propose(const ProposalRequest &request, std::stop_token stop)
{
    const auto prompt = m_prompts.build(request);
    if (!prompt)
        return {{}, "llm: " + prompt.error().message};
    const auto reply = m_client.complete({{"system", prompt->system}, {"user", prompt->user}}, stop);
    if (!reply)
        return {{}, "llm: " + reply.error().message};
    const auto parsed = ResponseParser::parse(reply->content, &request.op);
    const double cost = m_ledger->record(reply->promptTokens, reply->completionTokens, bool(parsed));
    if (!parsed) {
        std::string reason = "llm answer rejected: " + parsed.error().message;
        if (reply->finishReason == "length")
            reason += " (the answer hit the token limit; raise --max-tokens)";
        return {{}, reason};
    }
    CandidateProvenance provenance;
    provenance.proposer = "llm";
    provenance.model = reply->model.empty() ? m_client.settings().model : reply->model;
    provenance.prompt = ResponseParser::toValidUtf8(prompt->combined());
    provenance.promptSha256 = sha256Hex(provenance.prompt);
    provenance.response = ResponseParser::toValidUtf8(reply->content);
    provenance.promptTokens = reply->promptTokens;
    provenance.completionTokens = reply->completionTokens;
    provenance.cost = cost;
    if (reply->attempts > 1)
        provenance.note = "answered on attempt " + std::to_string(reply->attempts);
    return {{makeProposedCandidate(request, *parsed, std::move(provenance))}, {}};
}

} // namespace kx
