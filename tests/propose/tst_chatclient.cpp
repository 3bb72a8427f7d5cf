// The chat client against a real local HTTP server: answers, retries, timeouts, cancellation, bad bodies.
#include "fakechatserver.h"

#include "core/propose/chatclient.h"
#include "core/propose/concurrencylimit.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <future>

using namespace kx;
using namespace kx::test;

namespace {

LlmSettings settingsFor(const FakeChatServer &server)
{
    LlmSettings settings;
    settings.endpoint = server.endpoint();
    settings.model = "fake-model";
    settings.apiKeyEnv = "KX_TEST_CHAT_KEY";
    settings.timeoutSeconds = 20;
    settings.maxRetries = 3;
    settings.retryBaseSeconds = 0.01;
    return settings;
}

const std::vector<ChatMessage> kMessages{{"system", "be brief"}, {"user", "write a kernel"}};

} // namespace

TEST_CASE("a good answer comes back with its tokens, and the request carries model, settings and key")
{
    FakeChatServer server;
    server.script({answer("hello", 11, 7)});
    ::setenv("KX_TEST_CHAT_KEY", "secret-123", 1);
    auto settings = settingsFor(server);
    settings.temperature = 0.25;
    settings.maxTokens = 321;
    const auto reply = ChatClient(settings).complete(kMessages, {});
    ::unsetenv("KX_TEST_CHAT_KEY");
    REQUIRE_MESSAGE(reply, (reply ? "" : reply.error().message));
    CHECK(reply->content == "hello");
    CHECK(reply->promptTokens == 11);
    CHECK(reply->completionTokens == 7);
    CHECK(reply->model == "fake-model-1");
    CHECK(reply->attempts == 1);
    const auto received = server.received();
    REQUIRE(received.size() == 1);
    CHECK(received[0].at("model") == "fake-model");
    CHECK(received[0].at("max_tokens") == 321);
    CHECK(received[0].at("temperature").get<double>() == doctest::Approx(0.25));
    CHECK(received[0].at("messages").size() == 2);
    CHECK(received[0].at("messages")[1].at("content") == "write a kernel");
    CHECK(server.authorizations()[0] == "Bearer secret-123");
}

TEST_CASE("without the key variable no Authorization header is sent")
{
    FakeChatServer server;
    server.script({answer("hi")});
    ::unsetenv("KX_TEST_CHAT_KEY");
    REQUIRE(ChatClient(settingsFor(server)).complete(kMessages, {}));
    CHECK(server.authorizations()[0].empty());
}

TEST_CASE("a key handed in with the settings is sent and wins over the key variable")
{
    FakeChatServer server;
    server.script({answer("hi")});
    ::setenv("KX_TEST_CHAT_KEY", "from-environment", 1);
    auto settings = settingsFor(server);
    settings.apiKey = "from-keychain";
    const auto reply = ChatClient(settings).complete(kMessages, {});
    ::unsetenv("KX_TEST_CHAT_KEY");
    REQUIRE_MESSAGE(reply, (reply ? "" : reply.error().message));
    CHECK(server.authorizations()[0] == "Bearer from-keychain");
}

TEST_CASE("429 with Retry-After is retried, then succeeds")
{
    FakeChatServer server;
    server.script(
        {reply(429, R"({"error": {"message": "rate limited"}})", "application/json", 0, {{"Retry-After", "0"}}),
         answer("second time lucky")});
    const auto reply = ChatClient(settingsFor(server)).complete(kMessages, {});
    REQUIRE_MESSAGE(reply, (reply ? "" : reply.error().message));
    CHECK(reply->content == "second time lucky");
    CHECK(reply->attempts == 2);
    CHECK(server.requestCount() == 2);
}

TEST_CASE("500s until the retries run out give up with the status in the message")
{
    FakeChatServer server;
    server.script({reply(500, "internal error", "text/plain")});
    auto settings = settingsFor(server);
    settings.maxRetries = 2;
    const auto reply = ChatClient(settings).complete(kMessages, {});
    REQUIRE_FALSE(reply);
    CHECK(server.requestCount() == 3);
    CHECK(reply.error().message.find("HTTP 500") != std::string::npos);
    CHECK(reply.error().message.find("gave up after 3 attempts") != std::string::npos);
}

TEST_CASE("a 4xx other than 429 is not retried")
{
    FakeChatServer server;
    server.script({reply(401, R"({"error": "invalid api key"})")});
    const auto reply = ChatClient(settingsFor(server)).complete(kMessages, {});
    REQUIRE_FALSE(reply);
    CHECK(server.requestCount() == 1);
    CHECK(reply.error().message.find("HTTP 401") != std::string::npos);
}

TEST_CASE("a slow answer hits the timeout")
{
    FakeChatServer server;
    server.script({reply(200, completionBody("too late"), "application/json", 30)});
    auto settings = settingsFor(server);
    settings.timeoutSeconds = 0.3;
    settings.maxRetries = 0;
    const auto reply = ChatClient(settings).complete(kMessages, {});
    REQUIRE_FALSE(reply);
    CHECK(reply.error().message.find("no answer within the timeout") != std::string::npos);
}

TEST_CASE("cancelling aborts the request in flight within a second")
{
    FakeChatServer server;
    server.script({reply(200, completionBody("never seen"), "application/json", 60)});
    auto settings = settingsFor(server);
    settings.timeoutSeconds = 120;
    std::stop_source stop;
    auto result =
        std::async(std::launch::async, [&] { return ChatClient(settings).complete(kMessages, stop.get_token()); });
    while (server.requestCount() == 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const auto asked = std::chrono::steady_clock::now();
    stop.request_stop();
    const auto reply = result.get();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
    REQUIRE_FALSE(reply);
    CHECK(reply.error().message == "cancelled");
    CHECK(seconds < 1.0);
}

TEST_CASE("malformed JSON and an HTML error page give a reason, not a crash")
{
    FakeChatServer server;
    server.script({reply(200, readDataFile("malformed-completion.json"))});
    const auto malformed = ChatClient(settingsFor(server)).complete(kMessages, {});
    REQUIRE_FALSE(malformed);
    CHECK(malformed.error().message.find("not JSON") != std::string::npos);

    // A proxy answering 200 with its own HTML page.
    server.script({reply(200, readDataFile("gateway-error.html"), "text/html")});
    const auto html = ChatClient(settingsFor(server)).complete(kMessages, {});
    REQUIRE_FALSE(html);
    CHECK(html.error().message.find("not JSON") != std::string::npos);

    server.script({reply(200, R"({"object": "list", "data": []})")});
    const auto wrongShape = ChatClient(settingsFor(server)).complete(kMessages, {});
    REQUIRE_FALSE(wrongShape);
    CHECK(wrongShape.error().message.find("not a chat completion") != std::string::npos);
}

TEST_CASE("an unreachable server is named in the message")
{
    // Port 1 on the loopback interface: nothing listens there, the connection is refused at once.
    const std::string endpoint = "http://127.0.0.1:1/v1";
    LlmSettings settings;
    settings.endpoint = endpoint;
    settings.model = "m";
    settings.maxRetries = 1;
    settings.retryBaseSeconds = 0.01;
    const auto reply = ChatClient(settings).complete(kMessages, {});
    REQUIRE_FALSE(reply);
    CHECK(reply.error().message.find("cannot reach " + endpoint) != std::string::npos);
}

TEST_CASE("bad endpoints and missing models are errors before anything is sent")
{
    CHECK_FALSE(ChatClient::checkEndpoint("localhost:8000"));
    CHECK_FALSE(ChatClient::checkEndpoint("ftp://example.org/v1"));
    CHECK(ChatClient::checkEndpoint("http://127.0.0.1:8000/v1"));
    LlmSettings settings;
    settings.endpoint = "http://127.0.0.1:9/v1";
    const auto reply = ChatClient(settings).complete(kMessages, {});
    REQUIRE_FALSE(reply);
    CHECK(reply.error().message.find("no model") != std::string::npos);
}

TEST_CASE("the concurrency limit bounds requests in flight across clients")
{
    FakeChatServer server;
    server.script({reply(200, completionBody("ok"), "application/json", 0.2)});
    auto limit = std::make_shared<ConcurrencyLimit>(1);
    const ChatClient first(settingsFor(server), limit), second(settingsFor(server), limit);
    auto a = std::async(std::launch::async, [&] { return first.complete(kMessages, {}); });
    auto b = std::async(std::launch::async, [&] { return second.complete(kMessages, {}); });
    CHECK(a.get());
    CHECK(b.get());
    CHECK(server.requestCount() == 2);
    CHECK(server.maxInFlight() == 1);
    CHECK(limit->available() == 1);
}

TEST_CASE("cancelling during the backoff between retries returns at once")
{
    FakeChatServer server;
    server.script({reply(503, "busy", "text/plain", 0, {{"Retry-After", "30"}})});
    auto settings = settingsFor(server);
    std::stop_source stop;
    auto result =
        std::async(std::launch::async, [&] { return ChatClient(settings).complete(kMessages, stop.get_token()); });
    while (server.requestCount() == 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const auto asked = std::chrono::steady_clock::now();
    stop.request_stop();
    const auto reply = result.get();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
    REQUIRE_FALSE(reply);
    CHECK(reply.error().message == "cancelled");
    CHECK(server.requestCount() == 1);
    CHECK(seconds < 1.0);
}
