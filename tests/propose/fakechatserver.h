#pragma once

// A real HTTP server on 127.0.0.1 (a free port) that speaks OpenAI-style chat completions from scripted
// replies, for testing the chat client and the LLM proposer without the internet.
#include "proposetestdata.h"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace kx::test {

struct ScriptedReply
{
    int status = 200;
    std::string body;
    std::string contentType = "application/json";
    double delaySeconds = 0;
    std::map<std::string, std::string> headers;
    // Misbehaving servers:
    double dripSeconds = 0;         ///< > 0: sends the body one byte at a time, this far apart.
    long long closeAfterBytes = -1; ///< >= 0: drops the connection after this many bytes of the body.
    bool chunked = false;           ///< Sends the body in chunks, without a Content-Length.
};

/// A chat completion body with the given answer and token counts.
inline std::string completionBody(const std::string &content, int promptTokens = 120, int completionTokens = 80,
                                  const std::string &finishReason = "stop")
{
    nlohmann::json body{
        {"id", "chatcmpl-test"},
        {"object", "chat.completion"},
        {"model", "fake-model-1"},
        {"choices",
         {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", content}}}, {"finish_reason", finishReason}}}},
        {"usage",
         {{"prompt_tokens", promptTokens},
          {"completion_tokens", completionTokens},
          {"total_tokens", promptTokens + completionTokens}}}};
    return body.dump();
}

inline ScriptedReply reply(int status, std::string body, std::string contentType = "application/json",
                           double delaySeconds = 0, std::map<std::string, std::string> headers = {})
{
    return {status, std::move(body), std::move(contentType), delaySeconds, std::move(headers)};
}

inline ScriptedReply answer(const std::string &content, int promptTokens = 120, int completionTokens = 80)
{
    return reply(200, completionBody(content, promptTokens, completionTokens));
}

class FakeChatServer
{
public:
    using Handler = std::function<ScriptedReply(const nlohmann::json &request, int index)>;

    FakeChatServer()
    {
        m_server.Post("/v1/chat/completions", [this](const httplib::Request &request, httplib::Response &response) {
            serve(request, response);
        });
        m_port = m_server.bind_to_any_port("127.0.0.1");
        if (m_port <= 0)
            throw std::runtime_error("cannot bind a port on 127.0.0.1");
        m_thread = std::thread([this] { m_server.listen_after_bind(); });
        while (!m_server.is_running())
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }

    ~FakeChatServer()
    {
        m_stopping = true;
        m_server.stop();
        m_thread.join();
    }

    std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(m_port) + "/v1"; }

    /// Replies in order; the last one repeats.
    void script(std::vector<ScriptedReply> replies)
    {
        std::lock_guard lock(m_mutex);
        m_replies = std::move(replies);
        m_handler = nullptr;
    }
    void setHandler(Handler handler)
    {
        std::lock_guard lock(m_mutex);
        m_handler = std::move(handler);
    }

    int requestCount() const { return m_requests; }
    int maxInFlight() const { return m_maxInFlight; }
    std::vector<nlohmann::json> received() const
    {
        std::lock_guard lock(m_mutex);
        return m_received;
    }
    std::vector<std::string> authorizations() const
    {
        std::lock_guard lock(m_mutex);
        return m_authorizations;
    }

private:
    void serve(const httplib::Request &request, httplib::Response &response)
    {
        const int inFlight = ++m_inFlight;
        for (int seen = m_maxInFlight; inFlight > seen && !m_maxInFlight.compare_exchange_weak(seen, inFlight);) {
        }
        ScriptedReply reply;
        {
            std::lock_guard lock(m_mutex);
            const int index = m_requests;
            const auto json = nlohmann::json::parse(request.body, nullptr, false);
            m_received.push_back(json);
            m_authorizations.push_back(request.get_header_value("Authorization"));
            if (m_handler)
                reply = m_handler(json, index);
            else if (!m_replies.empty())
                reply = m_replies[std::min<std::size_t>(std::size_t(index), m_replies.size() - 1)];
            ++m_requests;
        }
        const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(reply.delaySeconds);
        while (!m_stopping && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        response.status = reply.status;
        for (const auto &[name, value] : reply.headers)
            response.set_header(name, value);
        if (reply.dripSeconds > 0 || reply.closeAfterBytes >= 0 || reply.chunked)
            streamContent(response, reply);
        else
            response.set_content(reply.body, reply.contentType);
        --m_inFlight;
    }

    // The body written piece by piece after the headers: slowly, cut off, or chunked.
    void streamContent(httplib::Response &response, const ScriptedReply &reply)
    {
        const auto body = std::make_shared<std::string>(reply.body);
        const std::size_t piece = reply.dripSeconds > 0 ? 1 : std::size_t(1) << 16;
        const auto write = [this, body, piece, reply](std::size_t offset, httplib::DataSink &sink) {
            if (m_stopping || (reply.closeAfterBytes >= 0 && offset >= std::size_t(reply.closeAfterBytes)))
                return false; // the connection is dropped
            const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(reply.dripSeconds);
            while (!m_stopping && std::chrono::steady_clock::now() < until)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            std::size_t length = std::min(piece, body->size() - offset);
            if (reply.closeAfterBytes >= 0)
                length = std::min(length, std::size_t(reply.closeAfterBytes) - offset);
            return !m_stopping && sink.write(body->data() + offset, length);
        };
        if (reply.chunked) {
            response.set_chunked_content_provider(reply.contentType,
                                                  [write, body](std::size_t offset, httplib::DataSink &sink) {
                                                      if (offset >= body->size()) {
                                                          sink.done();
                                                          return true;
                                                      }
                                                      return write(offset, sink);
                                                  });
        } else {
            response.set_content_provider(
                body->size(), reply.contentType,
                [write](std::size_t offset, std::size_t, httplib::DataSink &sink) { return write(offset, sink); });
        }
    }

    httplib::Server m_server;
    std::thread m_thread;
    int m_port = 0;
    std::atomic<bool> m_stopping{false};
    mutable std::mutex m_mutex;
    std::vector<ScriptedReply> m_replies;
    Handler m_handler;
    std::vector<nlohmann::json> m_received;
    std::vector<std::string> m_authorizations;
    std::atomic<int> m_requests{0};
    std::atomic<int> m_inFlight{0};
    std::atomic<int> m_maxInFlight{0};
};

} // namespace kx::test
