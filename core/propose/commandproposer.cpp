#include "core/propose/commandproposer.h"

#include "core/propose/candidatemaker.h"
#include "core/propose/commandrunner.h"
#include "core/propose/responseparser.h"

namespace kx {
namespace {

std::string stderrTail(const std::string &err)
{
    constexpr std::size_t kTail = 600;
    std::string tail = ResponseParser::toValidUtf8(err.size() > kTail ? "..." + err.substr(err.size() - kTail) : err);
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' '))
        tail.pop_back();
    return tail.empty() ? std::string() : "; stderr: " + tail;
}

} // namespace

CommandProposer::CommandProposer(CommandSettings settings, PromptBuilder prompts)
    : m_settings(std::move(settings))
    , m_prompts(std::move(prompts))
{}

ProposalResult CommandProposer::propose(const ProposalRequest &request, std::stop_token stop)
{
    const auto prompt = m_prompts.build(request);
    if (!prompt)
        return {{}, "command: " + prompt.error().message};
    const std::string input = prompt->combined();
    const auto output =
        CommandRunner::run(m_settings.command, input, std::chrono::duration<double>(m_settings.timeoutSeconds), stop);
    if (!output)
        return {{}, "command: " + output.error().message};
    if (output->exitCode != 0)
        return {{}, "command exited with status " + std::to_string(output->exitCode) + stderrTail(output->err)};
    const auto parsed = ResponseParser::parse(output->out, &request.op);
    if (!parsed)
        return {{}, "command output rejected: " + parsed.error().message + stderrTail(output->err)};
    CandidateProvenance provenance;
    provenance.proposer = "command";
    provenance.model = m_settings.command;
    provenance.prompt = ResponseParser::toValidUtf8(input);
    provenance.response = ResponseParser::toValidUtf8(output->out);
    return {{makeProposedCandidate(request, *parsed, std::move(provenance))}, {}};
}

} // namespace kx
