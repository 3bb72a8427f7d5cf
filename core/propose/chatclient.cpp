#include "core/propose/chatclient.h"

#include "core/propose/concurrencylimit.h"
#include "core/util/childenvironment.h"
#include "core/util/jsonparse.h"

#ifdef KX_HAVE_HTTPLIB
#include <httplib.h>
#endif
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>

namespace kx {
namespace {

struct Endpoint
{
    std::string schemeHostPort; ///< "http://host:port"
    std::string path;           ///< "/v1/chat/completions"
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
        return Error{"'" + url
                     + "' needs TLS, but this build's HTTP library has no OpenSSL support: use http:// "
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

std::string megabytes(std::int64_t bytes)
{
    std::ostringstream text;
    text << double(bytes) / (1 << 20) << " MiB";
    return text.str();
}

// Stops a request that runs past its deadline: the read timeout bounds each read only, so a server that sends a
// byte now and then would otherwise hold the request (and the search) forever.
class RequestWatchdog
{
public:
    RequestWatchdog(httplib::Client &client, std::chrono::steady_clock::time_point deadline)
        : m_thread([this, &client, deadline](std::stop_token done) {
            std::mutex mutex;
            std::condition_variable_any wake;
            std::unique_lock lock(mutex);
            if (wake.wait_until(lock, done, deadline, [] { return false; }) || done.stop_requested())
                return;
            m_fired = true;
            // Again and again: a stop before the socket is open does nothing.
            while (!done.stop_requested()) {
                client.stop();
                wake.wait_for(lock, done, std::chrono::milliseconds(50), [] { return false; });
            }
        })
    {}
    bool fired() const { return m_fired; }

private:
    std::atomic<bool> m_fired{false};
    std::jthread m_thread; // last: stopped and joined first
};
#endif

// A token count of the usage block: a whole number from 0 to kMaxTokens, also when sent as a string ("120").
// A server's count feeds cost estimates, so anything else is refused rather than guessed.
constexpr std::int64_t kMaxTokens = 1'000'000'000;

Expected<std::int64_t> tokenCount(const nlohmann::json &usage, const char *key)
{
    const auto it = usage.find(key);
    if (it == usage.end() || it->is_null())
        return std::int64_t(0);
    std::optional<double> value;
    if (it->is_number_unsigned())
        value = double(std::min<std::uint64_t>(it->get<std::uint64_t>(), std::uint64_t(kMaxTokens) + 1));
    else if (it->is_number_integer())
        value = double(std::max<std::int64_t>(it->get<std::int64_t>(), -1));
    else if (it->is_number_float() && std::isfinite(it->get<double>())
             && it->get<double>() == std::floor(it->get<double>()))
        value = it->get<double>();
    else if (it->is_string()) {
        const auto text = it->get<std::string>();
        const auto first = text.find_first_not_of(" \t");
        const auto last = text.find_last_not_of(" \t");
        const auto digits = first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
        if (!digits.empty() && digits.size() <= 12 && digits.find_first_not_of("0123456789") == std::string::npos)
            value = double(std::stoll(digits));
    }
    if (!value || *value < 0 || *value > double(kMaxTokens))
        return Error{"the server's answer has usage." + std::string(key) + " = " + it->dump().substr(0, 40)
                     + ", not a token count (a whole number from 0 to " + std::to_string(kMaxTokens) + ")"};
    return std::int64_t(*value);
}

[[maybe_unused]] Expected<ChatReply> parseReply(const std::string &body)
{
    const auto parsed = parseJson(body);
    if (!parsed || !parsed->is_object())
        return Error{"the server's answer is not JSON" + (parsed ? std::string() : " (" + parsed.error().message + ")")
                     + ": " + snippet(body)};
    const nlohmann::json &json = *parsed;
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
            const auto prompt = tokenCount(*usage, "prompt_tokens");
            if (!prompt)
                return prompt.error();
            const auto completion = tokenCount(*usage, "completion_tokens");
            if (!completion)
                return completion.error();
            reply.promptTokens = *prompt;
            reply.completionTokens = *completion;
        }
        return reply;
    } catch (const nlohmann::json::exception &) {
        return Error{"the server's answer is not a chat completion (no choices[0].message.content): " + snippet(body)};
    }
}

#ifdef KX_HAVE_HTTPLIB
// Retry-After in seconds; nullopt for what is not a finite, non-negative number ("-5", "nan", an HTTP date),
// which then leaves the computed backoff alone.
std::optional<double> retryAfterSeconds(const httplib::Response &response)
{
    if (!response.has_header("Retry-After"))
        return std::nullopt;
    try {
        const double seconds = std::stod(response.get_header_value("Retry-After"));
        if (std::isfinite(seconds) && seconds >= 0)
            return seconds;
    } catch (const std::exception &) {
    }
    return std::nullopt;
}
#endif

} // namespace

ChatClient::ChatClient(LlmSettings settings, std::shared_ptr<ConcurrencyLimit> limit)
    : m_settings(std::move(settings))
    , m_limit(std::move(limit))
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
        return Error{"no model given (a model name such as gpt-4o)"};
#ifndef KX_HAVE_HTTPLIB
    (void)messages;
    (void)stop;
    return Error::unavailable("this build has no HTTP client (cpp-httplib was not found at build time): the llm "
                              "proposer cannot reach "
                              + m_settings.endpoint);
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

    using Clock = std::chrono::steady_clock;
    const auto timeout = std::chrono::duration<double>(std::max(0.1, m_settings.timeoutSeconds));
    const auto timeoutUs = std::chrono::duration_cast<std::chrono::microseconds>(timeout);
    const auto deadline = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(std::max(0.1, m_settings.deadlineSeconds)));
    const auto maxBytes = std::max<std::int64_t>(1024, m_settings.maxResponseBytes);
    std::string lastError;
    for (int attempt = 0; attempt <= std::max(0, m_settings.maxRetries); ++attempt) {
        if (stop.stop_requested())
            return Error::cancelled("cancelled");
        httplib::Client client(endpoint->schemeHostPort);
        client.set_connection_timeout(std::min(timeoutUs, std::chrono::microseconds(10'000'000)));
        client.set_read_timeout(timeoutUs);
        client.set_write_timeout(timeoutUs);

        // The body is collected here rather than by the library, so that an oversized one stops being read
        // at the cap instead of filling memory.
        std::string body;
        bool tooLarge = false;
        auto lastData = Clock::now();
        httplib::Request request;
        request.method = "POST";
        request.path = endpoint->path;
        request.headers = headers;
        request.headers.emplace("Content-Type", "application/json");
        request.body = payload;
        request.response_handler = [&](const httplib::Response &response) {
            lastData = Clock::now();
            if (response.has_header("Content-Length")
                && response.get_header_value<std::uint64_t>("Content-Length") > std::uint64_t(maxBytes))
                tooLarge = true;
            return !tooLarge;
        };
        request.content_receiver = [&](const char *data, std::size_t length, std::uint64_t, std::uint64_t) {
            lastData = Clock::now();
            if (body.size() + length > std::size_t(maxBytes)) {
                tooLarge = true;
                return false;
            }
            body.append(data, length);
            return true;
        };

        std::optional<httplib::Result> result;
        bool pastDeadline = false;
        const auto started = Clock::now();
        {
            ConcurrencySlot slot(m_limit.get(), stop);
            if (!slot.acquired())
                return Error::cancelled("cancelled");
            // Shutting the socket down makes a blocked read return at once.
            std::stop_callback abort(stop, [&client] { client.stop(); });
            RequestWatchdog watchdog(client, Clock::now() + deadline);
            result.emplace(client.send(request));
            pastDeadline = watchdog.fired();
        }
        if (stop.stop_requested())
            return Error::cancelled("cancelled");
        std::optional<double> wait;
        const httplib::Result &answer = *result;
        if (tooLarge) {
            // Not retried: the same request would get the same answer.
            return Error{m_settings.endpoint + " sent an answer larger than " + megabytes(maxBytes)
                         + " (the most kx accepts); it was not read further"};
        } else if (pastDeadline) {
            lastError = m_settings.endpoint + " did not finish its answer within the deadline of "
                        + std::to_string(int(std::ceil(std::chrono::duration<double>(deadline).count())))
                        + " s (--llm-deadline) after " + std::to_string(body.size()) + " bytes";
        } else if (!answer) {
            // A timed-out read and a connection the server closed both come back as a read error; a timeout
            // cannot fire before the read timeout has passed since the last data.
            const bool closed = answer.error() == httplib::Error::Read
                                && Clock::now() - lastData < std::chrono::duration_cast<Clock::duration>(timeout * 0.9);
            lastError =
                "cannot reach " + m_settings.endpoint + ": "
                + (closed
                       ? "the server closed the connection before the answer was complete (after "
                             + std::to_string(body.size()) + " bytes of the body, "
                             + std::to_string(
                                 std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count())
                             + " ms)"
                       : describe(answer.error()));
        } else if (answer->status == 429 || answer->status >= 500) {
            lastError = m_settings.endpoint + " answered HTTP " + std::to_string(answer->status) + ": " + snippet(body);
            wait = retryAfterSeconds(*answer);
        } else if (answer->status != 200) {
            return Error{m_settings.endpoint + " answered HTTP " + std::to_string(answer->status) + ": "
                         + snippet(body)};
        } else {
            auto reply = parseReply(body);
            if (reply)
                reply->attempts = attempt + 1;
            return reply;
        }
        if (attempt == m_settings.maxRetries)
            break;
        // Retry-After may lengthen the backoff, never shorten it: a server saying "0" (or "-5") is not obeyed
        // into a burst of requests.
        const double backoff = std::max(0.0, m_settings.retryBaseSeconds) * std::pow(2.0, attempt);
        const double seconds = std::min(m_settings.retryMaxSeconds, std::max(backoff, wait.value_or(0.0)));
        if (!sleepFor(std::chrono::duration<double>(seconds), stop))
            return Error::cancelled("cancelled");
    }
    // Only what may pass is retried (unreachable, too slow, busy or failing): the server is not available.
    return Error::unavailable(lastError + " (gave up after " + std::to_string(std::max(0, m_settings.maxRetries) + 1)
                              + " attempts)");
#endif
}

} // namespace kx
