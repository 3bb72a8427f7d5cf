#include "core/propose/chatclient.h"

#include "core/propose/concurrencylimit.h"
#include "core/util/childenvironment.h"

#ifdef KX_HAVE_HTTPLIB
#include <httplib.h>
#endif
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <regex>

namespace kx {
namespace {

struct Endpoint
{
    std::string schemeHostPort;             ///< "http://host:port"
    std::string path;                       ///< "/v1/chat/completions"
};

Expected<Endpoint> parseEndpoint(const std::string &url)
{
    static const std::regex pattern(R"(^(https?)://([^/\s?#]+)(/[^\s?#]*)?$)", std::regex::icase);
    std::smatch match;
    if (!std::regex_match(url, match, pattern))
        return Error{"'" + url + "' is not an http(s) URL such as http://127.0.0.1:8000/v1"};
    std::string scheme = match[1].str();
    std::transform(scheme.begin(), scheme.end(), scheme.begin(), [](unsigned char c) { return char(std::tolower(c)); });
#if defined(KX_HAVE_HTTPLIB) && !defined(CPPHTTPLIB_OPENSSL_SUPPORT)
    if (scheme == "https")
        return Error{"'" + url + "' needs TLS, but this build's HTTP library has no OpenSSL support: use http:// "
                     "(e.g. a local proxy) or rebuild with an OpenSSL-enabled cpp-httplib"};
#endif
    std::string path = match[3].str();
    while (!path.empty() && path.back() == '/')
        path.pop_back();
    return Endpoint{scheme + "://" + match[2].str(), path + "/chat/completions"};
}

// Waits, waking early when stop is requested. Returns false when stopped.
[[maybe_unused]] bool sleepFor(std::chrono::duration<double> duration, std::stop_token stop)
{
    std::mutex mutex;
    std::condition_variable_any wake;
    std::unique_lock lock(mutex);
    wake.wait_for(lock, stop, std::chrono::duration_cast<std::chrono::milliseconds>(duration), [] { return false; });
    return !stop.stop_requested();
}

[[maybe_unused]] std::string snippet(const std::string &text, std::size_t length = 200)
{
    std::string result = text.substr(0, length);
    std::replace(result.begin(), result.end(), '\n', ' ');
    return text.size() > length ? result + " ..." : result;
}

#ifdef KX_HAVE_HTTPLIB
std::string describe(httplib::Error error)
{
    switch (error) {
    case httplib::Error::Connection: return "connection failed";
    case httplib::Error::Read: return "no answer within the timeout (read failed)";
    case httplib::Error::Write: return "could not send the request";
    case httplib::Error::ConnectionTimeout: return "connection timed out";
    case httplib::Error::SSLConnection: return "TLS connection failed";
    case httplib::Error::SSLServerVerification: return "the server's TLS certificate could not be verified";
    default: return httplib::to_string(error);
    }
}

#endif

[[maybe_unused]] Expected<ChatReply> parseReply(const std::string &body)
{
    const auto json = nlohmann::json::parse(body, nullptr, false);
    if (json.is_discarded() || !json.is_object())
        return Error{"the server's answer is not JSON: " + snippet(body)};
    try {
        if (json.contains("error"))
            return Error{"the server reported an error: " + snippet(json.at("error").dump())};
        const auto &choice = json.at("choices").at(0);
        ChatReply reply;
        const auto &content = choice.at("message").at("content");
        reply.content = content.is_string() ? content.get<std::string>() : std::string();
        reply.finishReason = choice.value("finish_reason", std::string());
        if (choice.contains("finish_reason") && choice.at("finish_reason").is_null())
            reply.finishReason.clear();
        reply.model = json.value("model", std::string());
        if (const auto usage = json.find("usage"); usage != json.end() && usage->is_object()) {
            reply.promptTokens = usage->value("prompt_tokens", std::int64_t(0));
            reply.completionTokens = usage->value("completion_tokens", std::int64_t(0));
        }
        return reply;
    } catch (const nlohmann::json::exception &) {
        return Error{"the server's answer is not a chat completion (no choices[0].message.content): " + snippet(body)};
    }
}

#ifdef KX_HAVE_HTTPLIB
std::optional<double> retryAfterSeconds(const httplib::Response &response)
{
    if (!response.has_header("Retry-After"))
        return std::nullopt;
    try {
        return std::max(0.0, std::stod(response.get_header_value("Retry-After")));
    } catch (const std::exception &) {
        return std::nullopt; // An HTTP date: fall back to the computed backoff.
    }
}
#endif

} // namespace

ChatClient::ChatClient(LlmSettings settings, std::shared_ptr<ConcurrencyLimit> limit)
    : m_settings(std::move(settings)), m_limit(std::move(limit))
{
    // The key's variable may have any name; child processes must not see it either way.
    markSecretVariable(m_settings.apiKeyEnv);
}

Status ChatClient::checkEndpoint(const std::string &endpoint)
{
    const auto parsed = parseEndpoint(endpoint);
    if (!parsed)
        return parsed.error();
    return {};
}

Expected<ChatReply> ChatClient::complete(const std::vector<ChatMessage> &messages, std::stop_token stop) const
{
    const auto endpoint = parseEndpoint(m_settings.endpoint);
    if (!endpoint)
        return endpoint.error();
    if (m_settings.model.empty())
        return Error{"no model given (e.g. --model gpt-4o)"};
#ifndef KX_HAVE_HTTPLIB
    (void)messages;
    (void)stop;
    return Error{"this build has no HTTP client (cpp-httplib was not found at build time): the llm proposer "
                 "cannot reach " + m_settings.endpoint};
#else

    nlohmann::json body{{"model", m_settings.model},
                        {"temperature", m_settings.temperature},
                        {"max_tokens", m_settings.maxTokens},
                        {"messages", nlohmann::json::array()}};
    for (const auto &message : messages)
        body["messages"].push_back({{"role", message.role}, {"content", message.content}});
    const std::string payload = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);

    httplib::Headers headers;
    if (!m_settings.apiKey.empty())
        headers.emplace("Authorization", "Bearer " + m_settings.apiKey);
    else if (!m_settings.apiKeyEnv.empty())
        if (const char *key = std::getenv(m_settings.apiKeyEnv.c_str()); key && *key)
            headers.emplace("Authorization", std::string("Bearer ") + key);

    const auto timeout = std::chrono::duration<double>(std::max(0.1, m_settings.timeoutSeconds));
    const auto timeoutUs = std::chrono::duration_cast<std::chrono::microseconds>(timeout);
    std::string lastError;
    for (int attempt = 0; attempt <= std::max(0, m_settings.maxRetries); ++attempt) {
        if (stop.stop_requested())
            return Error{"cancelled"};
        httplib::Client client(endpoint->schemeHostPort);
        client.set_connection_timeout(std::min(timeoutUs, std::chrono::microseconds(10'000'000)));
        client.set_read_timeout(timeoutUs);
        client.set_write_timeout(timeoutUs);
        std::optional<httplib::Result> result;
        {
            ConcurrencySlot slot(m_limit.get(), stop);
            if (!slot.acquired())
                return Error{"cancelled"};
            // Shutting the socket down makes a blocked read return at once.
            std::stop_callback abort(stop, [&client] { client.stop(); });
            result.emplace(client.Post(endpoint->path, headers, payload, "application/json"));
        }
        if (stop.stop_requested())
            return Error{"cancelled"};
        std::optional<double> wait;
        const httplib::Result &answer = *result;
        if (!answer) {
            lastError = "cannot reach " + m_settings.endpoint + ": " + describe(answer.error());
        } else if (answer->status == 429 || answer->status >= 500) {
            lastError = m_settings.endpoint + " answered HTTP " + std::to_string(answer->status) + ": "
                        + snippet(answer->body);
            wait = retryAfterSeconds(*answer);
        } else if (answer->status != 200) {
            return Error{m_settings.endpoint + " answered HTTP " + std::to_string(answer->status) + ": "
                         + snippet(answer->body)};
        } else {
            auto reply = parseReply(answer->body);
            if (reply)
                reply->attempts = attempt + 1;
            return reply;
        }
        if (attempt == m_settings.maxRetries)
            break;
        const double backoff = m_settings.retryBaseSeconds * std::pow(2.0, attempt);
        const double seconds = std::min(m_settings.retryMaxSeconds, wait.value_or(backoff));
        if (!sleepFor(std::chrono::duration<double>(seconds), stop))
            return Error{"cancelled"};
    }
    return Error{lastError + " (gave up after " + std::to_string(std::max(0, m_settings.maxRetries) + 1)
                 + " attempts)"};
#endif
}

} // namespace kx
