// Extracting candidates from model answers: the good forms, and every kind of bad answer as a reason.
#include "proposetestdata.h"

#include "core/ops/builtinops.h"
#include "core/propose/responseparser.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <random>

using namespace kx;
using namespace kx::test;

namespace {
const Op &relu()
{
    const Op *op = findBuiltInOp("relu");
    REQUIRE(op);
    return *op;
}
} // namespace

TEST_CASE("fenced cuda and json blocks become a checked candidate")
{
    const auto parsed = ResponseParser::parse(readDataFile("good-answer.md"), &relu());
    REQUIRE_MESSAGE(parsed, (parsed ? "" : parsed.error().message));
    CHECK(parsed->source.find("relu_kernel") != std::string::npos);
    CHECK(parsed->source.find("```") == std::string::npos);
    CHECK(parsed->launchPlan.find("\"steps\"") != std::string::npos);
    CHECK(parsed->description == "ReLU with one element per thread and read-only loads.");
}

TEST_CASE("a single JSON object with source and plan is accepted")
{
    const auto parsed = ResponseParser::parse(readDataFile("json-object-answer.json"), &relu());
    REQUIRE_MESSAGE(parsed, (parsed ? "" : parsed.error().message));
    CHECK(parsed->source.find("relu4") != std::string::npos);
    CHECK(parsed->description == "ReLU, four elements per thread");
    CHECK(nlohmann::json::parse(parsed->launchPlan).at("steps").size() == 1);
}

TEST_CASE("bad answers give a reason")
{
    struct Case
    {
        std::string answer;
        std::string reason;
    };
    const std::vector<Case> cases{
        {"", "empty"},
        {readDataFile("truncated-answer.md"), "truncated"},
        {readDataFile("gateway-error.html"), "HTML page, not a candidate (\"502 Bad Gateway\")"},
        {readDataFile("host-code-answer.md"), "not device-only"},
        {"Sorry, I can't do that.", "neither"},
        {"```cuda\nextern \"C\" __global__ void k(float* out) {}\n```\n", "no ```json"},
        {"```json\n{\"steps\": []}\n```\n", "no ```cuda"},
        {"```cuda\nextern \"C\" __global__ void k(const float* x, float* out, int n) {}\n```\n```json\n{\"steps\": "
         "[{\"kernel\": "
         "\"k\", \"grid\": [\"1\"], \"block\": [\"1\"], \"args\": [{\"input\": \"nope\"}, {\"output\": \"out\"}, "
         "{\"int\": "
         "\"N\"}]}]}\n```\n",
         "does not fit the op"},
        {"```cuda\nextern \"C\" __global__ void k() {}\n```\n```json\n{\"steps\": [ {\"kernel\": }\n```\n",
         "launch plan is invalid"},
        {R"({"source": 5, "plan": {}})", "must be a string"},
    };
    for (const auto &c : cases) {
        CAPTURE(c.answer);
        const auto parsed = ResponseParser::parse(c.answer, &relu());
        REQUIRE_FALSE(parsed);
        CHECK_MESSAGE(parsed.error().message.find(c.reason) != std::string::npos, parsed.error().message);
    }
}

TEST_CASE("a plan that fits only the first shape set is refused, as the worker would refuse it")
{
    // relu's shape sets: N = 2^26 and N = 1000003; the grid is 33 blocks for the first and 0 for the second.
    const std::string answer =
        "```cuda\nextern \"C\" __global__ void k(const float* x, float* out, int n) {}\n```\n```json\n{\"steps\": "
        "[{\"kernel\": \"k\", \"grid\": [\"N / 2000000\"], \"block\": [\"256\"], \"args\": [{\"input\": \"x\"}, "
        "{\"output\": \"out\"}, {\"int\": \"N\"}]}]}\n```\n";
    const auto parsed = ResponseParser::parse(answer, &relu());
    REQUIRE_FALSE(parsed);
    CHECK_MESSAGE(parsed.error().message.find("does not fit the op") != std::string::npos, parsed.error().message);
    CHECK_MESSAGE(parsed.error().message.find("N=1000003") != std::string::npos, parsed.error().message);
}

TEST_CASE("random bytes and mangled answers never crash the parser")
{
    std::mt19937 random(12345);
    const std::string good = readDataFile("good-answer.md");
    for (int round = 0; round < 400; ++round) {
        std::string text;
        if (round % 2 == 0) {
            text.resize(std::size_t(random() % 600));
            for (auto &c : text)
                c = char(random() % 256);
        } else {
            text = good.substr(0, std::size_t(random() % (good.size() + 1)));
            for (int flips = 0; flips < 3; ++flips)
                if (!text.empty())
                    text[std::size_t(random() % text.size())] = char(random() % 256);
        }
        const auto parsed = ResponseParser::parse(text, &relu());
        if (!parsed)
            CHECK_FALSE(parsed.error().message.empty());
    }
}

TEST_CASE("invalid UTF-8 is replaced, valid text is kept")
{
    CHECK(ResponseParser::toValidUtf8("caf\xc3\xa9 ok") == "caf\xc3\xa9 ok");
    CHECK(ResponseParser::toValidUtf8("a\xff\xfe"
                                      "b")
          == "a??b");
    CHECK(ResponseParser::toValidUtf8(std::string("x\0y", 3)) == "x?y");
    CHECK(ResponseParser::toValidUtf8("\xe2\x82") == "??");
}
