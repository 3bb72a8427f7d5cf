#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kx {

/// How to reach an OpenAI-compatible chat-completions endpoint. The API key itself is never stored:
/// settings and runs keep only the name of the environment variable that holds it.
struct LlmSettings
{
    std::string endpoint = "http://127.0.0.1:8000/v1"; ///< Base URL; requests go to {endpoint}/chat/completions.
    std::string model;
    std::string apiKeyEnv = "OPENAI_API_KEY"; ///< Environment variable holding the key (may be unset).
    /// The key itself, handed in for one session (e.g. read from the system keychain); when set it wins over
    /// apiKeyEnv. Memory only: never write it to settings, archives or logs.
    std::string apiKey;
    double temperature = 0.7;
    int maxTokens = 4096;
    double timeoutSeconds = 120;             ///< Longest wait for the server to send anything (each read).
    double deadlineSeconds = 600;            ///< Longest one whole request may take, answer included.
    std::int64_t maxResponseBytes = 8 << 20; ///< Largest answer accepted from the server.
    int maxRetries = 4;                      ///< Extra attempts after 429, 5xx and network errors.
    double retryBaseSeconds = 1.0;           ///< First backoff; doubles with every retry.
    double retryMaxSeconds = 60;             ///< Cap on one wait, Retry-After included.
    int concurrency = 2;                     ///< Requests in flight at once across a run's proposers.
    double pricePromptPerMillion = 0;        ///< Currency units per 1M prompt tokens.
    double priceCompletionPerMillion = 0;    ///< Currency units per 1M completion tokens.

    bool operator==(const LlmSettings &) const = default;
};

/// An external program that reads a prompt on stdin and writes a candidate on stdout.
struct CommandSettings
{
    std::string command; ///< Run by /bin/sh -c.
    double timeoutSeconds = 300;

    bool operator==(const CommandSettings &) const = default;
};

/// Who proposes a search's candidates: the code templates, a language model, an external command, or a mix of
/// the templates and the model (or the command).
enum class ProposerKind { Template, Llm, Command, Mix };

/// "template", "llm", "command", "mix": the words of `kx search --proposer` and of stored settings.
const char *toString(ProposerKind kind);
std::optional<ProposerKind> proposerKindFromString(const std::string &text);

/// Which proposer a search uses and how it is set up: a plain struct that the CLI and the GUI fill in.
struct ProposerSettings
{
    ProposerKind kind = ProposerKind::Template;
    LlmSettings llm;
    CommandSettings command;
    double llmShare = 0.3;       ///< mix: share of requests given to the LLM (or command).
    std::string promptsDir;      ///< Prompt templates; empty: the installed ones.
    int contrastiveVariants = 6; ///< Earlier variants listed with their speeds.

    bool operator==(const ProposerSettings &) const = default;
};

/// Whether the search asks a language model: the llm proposer, or a mix that names a model (a mix asks the model
/// when it names one, otherwise it runs the command).
bool asksModel(const ProposerSettings &settings);
/// Whether the search runs an external command: the command proposer, or a mix that names no model.
bool runsCommand(const ProposerSettings &settings);

} // namespace kx
