// What a server says is not trusted: Retry-After, token counts, the size and pace of an answer, a dropped
// connection. Each case is a misbehaving mode of the local fake server.
#include "fakechatserver.h"

#include "core/propose/chatclient.h"
#include "core/propose/costledger.h"

#include <doctest/doctest.h>

#include <chrono>

using namespace kx;
using namespace kx::test;

namespace {

using Clock = std::chrono::steady_clock;

LlmSettings settingsFor(const FakeChatServer &server)
{
    LlmSettings settings;
    settings.endpoint = server.endpoint();
    settings.model = "fake-model";
    settings.apiKeyEnv = "KX_TEST_CHAT_KEY";
    settings.timeoutSeconds = 20;
    settings.maxRetries = 0;
    settings.retryBaseSeconds = 0.01;
    return settings;
}

const std::vector<ChatMessage> kMessages{{"system", "be brief"}, {"user", "write a kernel"}};

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

// A completion whose usage block is given as JSON text.
std::string completionWithUsage(const std::string &usage)
{
    auto body = nlohmann::json::parse(completionBody("the answer"));
    body["usage"] = nlohmann::json::parse(usage);
    return body.dump();
}

} // namespace

TEST_CASE("a Retry-After that is negative or not a number leaves the backoff in place")
{
    for (const char *value : {"-5", "nan", "-inf", "soon"}) {
        SUBCASE(value)
        {
            FakeChatServer server;
            server.script({reply(429, R"({"error": "slow down"})", "application/json", 0, {{"Retry-After", value}})});
            auto settings = settingsFor(server);
            settings.maxRetries = 3;
            settings.retryBaseSeconds = 0.1; // waits of 0.1, 0.2 and 0.4 s
            const auto start = Clock::now();
            const auto result = ChatClient(settings).complete(kMessages, {});
            const double seconds = secondsSince(start);
            REQUIRE_FALSE(result);
            CHECK(server.requestCount() == 4);
            CHECK_MESSAGE(seconds >= 0.65, "4 requests in " << seconds << " s: the backoff was skipped");
        }
    }
}

TEST_CASE("a Retry-After longer than the computed backoff is honoured, up to the cap")
{
    FakeChatServer server;
    server.script({reply(503, "busy", "text/plain", 0, {{"Retry-After", "1e18"}}), answer("finally")});
    auto settings = settingsFor(server);
    settings.maxRetries = 1;
    settings.retryMaxSeconds = 0.3;
    const auto start = Clock::now();
    const auto result = ChatClient(settings).complete(kMessages, {});
    REQUIRE_MESSAGE(result, (result ? "" : result.error().message));
    CHECK(secondsSince(start) >= 0.25);
    CHECK(secondsSince(start) < 5);
}

TEST_CASE("token counts sent as numeric strings are accepted")
{
    FakeChatServer server;
    server.script({reply(200, completionWithUsage(R"({"prompt_tokens": "120", "completion_tokens": " 80 "})"))});
    const auto result = ChatClient(settingsFor(server)).complete(kMessages, {});
    REQUIRE_MESSAGE(result, (result ? "" : result.error().message));
    CHECK(result->content == "the answer");
    CHECK(result->promptTokens == 120);
    CHECK(result->completionTokens == 80);

    // Whole numbers written as floats, and missing counts, are fine too.
    server.script({reply(200, completionWithUsage(R"({"prompt_tokens": 7.0})"))});
    const auto floats = ChatClient(settingsFor(server)).complete(kMessages, {});
    REQUIRE_MESSAGE(floats, (floats ? "" : floats.error().message));
    CHECK(floats->promptTokens == 7);
    CHECK(floats->completionTokens == 0);
}

TEST_CASE("negative, huge, fractional and non-numeric token counts are refused with a reason")
{
    const struct
    {
        const char *name;
        const char *usage;
        const char *field;
    } rows[] = {
        {"negative", R"({"prompt_tokens": -5, "completion_tokens": 10})", "usage.prompt_tokens"},
        {"huge", R"({"prompt_tokens": 10, "completion_tokens": 1e18})", "usage.completion_tokens"},
        {"huge integer", R"({"prompt_tokens": 9223372036854775807})", "usage.prompt_tokens"},
        {"huge unsigned", R"({"prompt_tokens": 18446744073709551615})", "usage.prompt_tokens"},
        {"fraction", R"({"prompt_tokens": 12.5})", "usage.prompt_tokens"},
        {"negative string", R"({"completion_tokens": "-3"})", "usage.completion_tokens"},
        {"word", R"({"prompt_tokens": "many"})", "usage.prompt_tokens"},
        {"boolean", R"({"prompt_tokens": true})", "usage.prompt_tokens"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            FakeChatServer server;
            server.script({reply(200, completionWithUsage(row.usage))});
            const auto result = ChatClient(settingsFor(server)).complete(kMessages, {});
            REQUIRE_FALSE_MESSAGE(result, "accepted " << std::string(row.usage) << " as " << result->promptTokens
                                                      << " + " << result->completionTokens << " tokens");
            CHECK_MESSAGE(contains(result.error().message, row.field), result.error().message);
            CHECK(contains(result.error().message, "not a token count"));
        }
    }
}

TEST_CASE("a cost is never negative")
{
    CostLedger ledger(2.0, 3.0);
    CHECK(ledger.cost(-1'000'000, -1'000'000) == 0.0);
    CHECK(ledger.cost(-1'000'000, 1'000'000) == doctest::Approx(3.0));
    CHECK(ledger.record(-5'000'000, 0, true) == 0.0);
    CHECK(ledger.totals().cost == 0.0);
    CHECK(ledger.totals().promptTokens == 0);
    CHECK(CostLedger(-1.0, -1.0).cost(1000, 1000) == 0.0);
}

TEST_CASE("an answer larger than the cap is refused without being read to its end")
{
    const std::string junk(50u << 20, 'x');
    const struct
    {
        const char *name;
        bool chunked;
    } rows[] = {{"with a Content-Length", false}, {"chunked, without a length", true}};
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            FakeChatServer server;
            // A valid answer followed by 50 MB more of the same text: accepted whole, it would be stored.
            auto big = reply(200, completionBody("__global__ void k() {}\n" + junk));
            big.chunked = row.chunked;
            server.script({big});
            const auto result = ChatClient(settingsFor(server)).complete(kMessages, {}); // default cap
            REQUIRE_FALSE_MESSAGE(result, "a " << result->content.size() << "-byte answer was accepted");
            CHECK_MESSAGE(contains(result.error().message, "larger than 8 MiB"), result.error().message);
            CHECK(server.requestCount() == 1); // not retried
        }
    }

    // The cap is a setting.
    FakeChatServer server;
    server.script({answer(std::string(4096, 'k'))});
    auto settings = settingsFor(server);
    settings.maxResponseBytes = 2048;
    const auto small = ChatClient(settings).complete(kMessages, {});
    REQUIRE_FALSE(small);
    CHECK(contains(small.error().message, "larger than"));
}

TEST_CASE("a server that sends a byte now and then is stopped at the whole-request deadline")
{
    FakeChatServer server;
    auto slow = reply(200, completionBody("never finished"));
    slow.dripSeconds = 0.1; // every read gets a byte well within the read timeout
    server.script({slow});
    auto settings = settingsFor(server);
    settings.timeoutSeconds = 2;
    settings.deadlineSeconds = 1;
    const auto start = Clock::now();
    const auto result = ChatClient(settings).complete(kMessages, {});
    const double seconds = secondsSince(start);
    REQUIRE_FALSE(result);
    CHECK_MESSAGE(contains(result.error().message, "deadline"), result.error().message);
    CHECK(seconds >= 0.9);
    CHECK(seconds < 4);
}

TEST_CASE("the deadline bounds each attempt, and retries still happen")
{
    FakeChatServer server;
    auto slow = reply(200, completionBody("never finished"));
    slow.dripSeconds = 0.1;
    server.script({slow, answer("second attempt")});
    auto settings = settingsFor(server);
    settings.maxRetries = 1;
    settings.deadlineSeconds = 0.5;
    const auto result = ChatClient(settings).complete(kMessages, {});
    REQUIRE_MESSAGE(result, (result ? "" : result.error().message));
    CHECK(result->content == "second attempt");
    CHECK(result->attempts == 2);
}

TEST_CASE("a connection the server closes is reported as closed, not as a timeout")
{
    for (const long long after : {0LL, 10LL}) {
        SUBCASE(("after " + std::to_string(after) + " bytes").c_str())
        {
            FakeChatServer server;
            auto dropped = reply(200, completionBody("cut short"));
            dropped.closeAfterBytes = after;
            server.script({dropped});
            const auto start = Clock::now();
            const auto result = ChatClient(settingsFor(server)).complete(kMessages, {});
            REQUIRE_FALSE(result);
            CHECK_MESSAGE(contains(result.error().message, "closed the connection"), result.error().message);
            CHECK_FALSE(contains(result.error().message, "timeout"));
            CHECK(secondsSince(start) < 5); // at once, not after the 20 s read timeout
        }
    }
}

TEST_CASE("an answer nested too deeply is an error, not a crash")
{
    FakeChatServer server;
    server.script({reply(200, std::string(100000, '[') + std::string(100000, ']'))});
    const auto result = ChatClient(settingsFor(server)).complete(kMessages, {});
    REQUIRE_FALSE(result);
    CHECK_MESSAGE(contains(result.error().message, "nest deeper than"), result.error().message);
}
