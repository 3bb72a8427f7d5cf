#pragma once

#include "core/propose/proposersettings.h"
#include "core/util/expected.h"

#include <cstdint>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

namespace kx {

class ConcurrencyLimit;

struct ChatMessage
{
    std::string role; ///< "system", "user" or "assistant".
    std::string content;
};

struct ChatReply
{
    std::string content;
    std::string model;        ///< As the server names it.
    std::string finishReason; ///< "stop", "length" ...
    std::int64_t promptTokens = 0;
    std::int64_t completionTokens = 0;
    int attempts = 0;
};

/**
 * A client for OpenAI-compatible chat completions (POST {endpoint}/chat/completions). Retries 429, 5xx
 * and network errors with exponential backoff (honouring Retry-After), bounds requests in flight with a
 * shared ConcurrencyLimit, and aborts an in-flight request promptly when the stop token is triggered.
 * The API key is the one handed in with the settings, else read from the environment variable they name
 * at each request.
 */
class ChatClient
{
public:
    explicit ChatClient(LlmSettings settings, std::shared_ptr<ConcurrencyLimit> limit = {});

    /// The reply, or an Error whose message says what went wrong ("cancelled" when stopped).
    Expected<ChatReply> complete(const std::vector<ChatMessage> &messages, std::stop_token stop) const;

    const LlmSettings &settings() const { return m_settings; }

    /// Checks an endpoint URL: http(s)://host[:port][/path]; https only where the HTTP library has TLS.
    static Status checkEndpoint(const std::string &endpoint);

private:
    LlmSettings m_settings;
    std::shared_ptr<ConcurrencyLimit> m_limit;
};

} // namespace kx
