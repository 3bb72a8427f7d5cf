#include "core/propose/proposerfactory.h"

#include "core/propose/chatclient.h"
#include "core/propose/commandproposer.h"
#include "core/propose/concurrencylimit.h"
#include "core/propose/llmproposer.h"
#include "core/propose/mixedproposer.h"
#include "core/propose/promptbuilder.h"
#include "core/search/templateproposer.h"
#include "core/util/childenvironment.h"

namespace kx {
namespace {

Expected<PromptBuilder> promptBuilder(const ProposerSettings &settings)
{
    const auto dir = PromptTemplates::findDir(settings.promptsDir);
    if (!dir)
        return dir.error();
    auto templates = PromptTemplates::load(*dir);
    if (!templates)
        return templates.error();
    return PromptBuilder(std::move(*templates), settings.contrastiveVariants);
}

} // namespace

ProposerResources ProposerResources::forSettings(const ProposerSettings &settings)
{
    // Called before a session starts its workers: from then on no child sees the key, whatever its variable.
    markSecretVariable(settings.llm.apiKeyEnv);
    return {std::make_shared<ConcurrencyLimit>(settings.llm.concurrency),
            std::make_shared<CostLedger>(settings.llm.pricePromptPerMillion, settings.llm.priceCompletionPerMillion)};
}

Status checkProposerSettings(const ProposerSettings &settings)
{
    const ProposerKind kind = settings.kind;
    const std::string name = toString(kind);
    if (kind == ProposerKind::Template)
        return {};
    if (asksModel(settings) || kind == ProposerKind::Llm) {
        if (settings.llm.model.empty())
            return Error{"the " + name + " proposer needs a model name (Model in Proposer Settings; kx: --model)"};
        if (const auto endpoint = ChatClient::checkEndpoint(settings.llm.endpoint); !endpoint)
            return Error{"--endpoint: " + endpoint.error().message};
        if (settings.llm.maxTokens <= 0 || settings.llm.timeoutSeconds <= 0 || settings.llm.deadlineSeconds <= 0
            || settings.llm.concurrency <= 0)
            return Error{"--max-tokens, --llm-timeout, --llm-deadline and --concurrency must be positive"};
    } else if (settings.command.command.empty()) {
        return Error{
            "the " + name
            + " proposer needs a command or a model name (Command or Model in Proposer Settings; kx: --command or "
              "--model)"};
    }
    if (kind == ProposerKind::Mix && (settings.llmShare < 0 || settings.llmShare > 1))
        return Error{"--llm-share must be between 0 and 1"};
    if (const auto prompts = promptBuilder(settings); !prompts)
        return prompts.error();
    return {};
}

Expected<std::unique_ptr<Proposer>> makeProposer(const ProposerSettings &settings, const ProposerResources &resources)
{
    if (const auto status = checkProposerSettings(settings); !status)
        return status.error();
    if (settings.kind == ProposerKind::Template)
        return std::unique_ptr<Proposer>(std::make_unique<TemplateProposer>());
    auto prompts = promptBuilder(settings);
    if (!prompts)
        return prompts.error();
    std::unique_ptr<Proposer> external;
    if (runsCommand(settings))
        external = std::make_unique<CommandProposer>(settings.command, std::move(*prompts));
    else
        external = std::make_unique<LlmProposer>(ChatClient(settings.llm, resources.limit), std::move(*prompts),
                                                 resources.ledger);
    if (settings.kind != ProposerKind::Mix)
        return external;
    std::vector<MixedProposer::Entry> entries;
    entries.push_back({std::make_unique<TemplateProposer>(), 1.0 - settings.llmShare});
    entries.push_back({std::move(external), settings.llmShare});
    return std::unique_ptr<Proposer>(std::make_unique<MixedProposer>(std::move(entries), 0));
}

std::function<std::unique_ptr<Proposer>()> proposerMaker(ProposerSettings settings, ProposerResources resources)
{
    return [settings = std::move(settings), resources = std::move(resources)]() -> std::unique_ptr<Proposer> {
        auto made = makeProposer(settings, resources);
        return made ? std::move(*made) : nullptr;
    };
}

} // namespace kx
