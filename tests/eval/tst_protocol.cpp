// The worker protocol: every message survives serialize -> parse; bad lines give clear errors.
#include "core/eval/protocol.h"

#include <doctest/doctest.h>

#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>

using namespace kx;

namespace {

Op sampleOp()
{
    Op op;
    op.name = "relu";
    op.description = "max(x, 0)";
    op.referenceSource = "torch.relu(x)";
    op.inputs = {{"x", {"N"}, "float32"}};
    op.outputs = {{"out", {"N"}, "float32"}};
    op.shapeSets = {{{"N", 4096}}, {{"N", 1 << 20}}};
    op.bytesMovedExpr = "8 * N";
    op.flopsExpr = "N";
    op.policy.atol = 1e-5;
    return op;
}

Candidate sampleCandidate()
{
    Candidate candidate;
    candidate.opName = "relu";
    candidate.source = "extern \"C\" __global__ void relu(const float *x, float *out, int n)\n{\n"
                       "    // \"quoted\" text, a tab\tand a backslash \\ \n}\n";
    candidate.launchPlan = R"({"steps": []})";
    candidate.id = makeCandidateId(candidate.source, candidate.launchPlan);
    candidate.origin = Origin::Mutated;
    candidate.parentIds = {"abc", "def"};
    candidate.operatorName = "block-size";
    candidate.description = "ok";
    candidate.runId = 7;
    candidate.createdAtMs = 1234567;
    return candidate;
}

std::string allBytes()
{
    std::string bytes;
    for (int i = 0; i < 256; ++i)
        bytes.push_back(static_cast<char>(i));
    return bytes;
}

EvaluateRequest sampleRequest(std::string cubin)
{
    EvaluateRequest request;
    request.id = 42;
    request.op = sampleOp();
    request.candidate = sampleCandidate();
    request.arch = "sm_90";
    request.cubin = std::move(cubin);
    request.compile = {32, 8, 1024, 71.5, "ptxas info: Used 32 registers\n"};
    request.settings.trials = 7;
    request.settings.seed = std::numeric_limits<std::uint64_t>::max();
    request.settings.timeoutMs = 1500;
    request.settings.precision = Precision::Tf32;
    request.settings.baselineEveryEvaluations = 50;
    request.settings.baselineEveryMinutes = 2.5;
    request.settings.baselineTimeoutMs = 90000;
    request.settings.inductorBaseline = false;
    request.settings.inductor.command = {"/usr/bin/kx", "baseline-runner", "--package", "/cache/p.pt2"};
    request.settings.inductor.method = "aoti-package";
    request.settings.inductor.details = R"({"package":"sha"})";
    return request;
}

GpuInfo sampleGpu()
{
    GpuInfo gpu;
    gpu.name = "NVIDIA H100 80GB HBM3";
    gpu.uuid = "GPU-1234";
    gpu.computeCapability = "9.0";
    gpu.smCount = 132;
    gpu.memoryBytes = std::int64_t(80) << 30;
    gpu.l2Bytes = 50 << 20;
    gpu.driverVersion = "580.65";
    gpu.measuredBandwidthGBs = 3012.5;
    return gpu;
}

Evaluation sampleEvaluation()
{
    Evaluation evaluation;
    evaluation.candidateId = "abc";
    evaluation.gpu = sampleGpu();
    evaluation.status = EvalStatus::Incorrect;
    evaluation.message = "output out differs";
    evaluation.correctness.trials = 5;
    evaluation.correctness.failure = "max abs error 3.5 at index 17";
    // Under tf32 the audit holds eager's own error with TF32 beside the fp32 reference's.
    evaluation.correctness.precisionAudit =
        PrecisionAudit{{1000, 4e-3, 2e-3, 1e-4}, {1000, 1e-7, 6e-8, 2e-8}, {1000, 3e-3, 1e-3, 1e-4}, {}};
    evaluation.samplesMs = {0.5, 0.25, 0.125};
    evaluation.timing = summarize(evaluation.samplesMs);
    evaluation.flags = {{"suspicious", R"({"speedup": 12})"}};
    evaluation.createdAtMs = 99;
    evaluation.precision = Precision::KernelBench;
    BaselineMeasurement eager;
    eager.uid = "u1";
    eager.kind = BaselineKind::Eager;
    eager.method = "libtorch-eager";
    eager.samplesMs = {0.75, 0.5};
    eager.timing = summarize(eager.samplesMs);
    eager.gpu = sampleGpu();
    BaselineMeasurement inductor;
    inductor.uid = "u2";
    inductor.kind = BaselineKind::Inductor;
    inductor.method = "aoti-package";
    inductor.error = "the Inductor baseline (aoti-package) crashed (signal 11 (SIGSEGV))";
    evaluation.baselines = {eager, inductor};
    return evaluation;
}

bool sameRequest(const EvaluateRequest &a, const EvaluateRequest &b)
{
    return a.id == b.id && a.op == b.op && a.candidate == b.candidate && a.arch == b.arch && a.cubin == b.cubin
           && a.compile == b.compile && a.settings == b.settings;
}

std::map<std::string, std::function<HostMessage()>> hostMessages()
{
    return {
        {"evaluate",
         [] {
             return HostMessage{EvaluateMessage{sampleRequest("\x7f"
                                                              "ELF binary")}};
         }},
        {"evaluate-all-bytes", [] { return HostMessage{EvaluateMessage{sampleRequest(allBytes())}}; }},
        {"evaluate-empty-cubin", [] { return HostMessage{EvaluateMessage{sampleRequest("")}}; }},
        {"ping", [] { return HostMessage{PingMessage{17}}; }},
        {"shutdown", [] { return HostMessage{ShutdownMessage{}}; }},
    };
}

std::map<std::string, std::function<WorkerMessage()>> workerMessages()
{
    return {
        {"hello",
         [] {
             return WorkerMessage{HelloMessage{kProtocolVersion, 4242, 1, sampleGpu(), ""}};
         }},
        {"hello-no-gpu",
         [] {
             return WorkerMessage{HelloMessage{kProtocolVersion, 4242, 0, {}, "no usable GPU on device 0"}};
         }},
        {"result",
         [] {
             return WorkerMessage{ResultMessage{42, sampleEvaluation(), false}};
         }},
        {"result-must-exit",
         [] {
             return WorkerMessage{ResultMessage{43, sampleEvaluation(), true}};
         }},
        {"pong", [] { return WorkerMessage{PongMessage{17}}; }},
        {"busy",
         [] {
             return WorkerMessage{BusyMessage{42, 600000, "measuring the baselines of relu"}};
         }},
        {"error-with-id",
         [] {
             return WorkerMessage{ErrorMessage{12, "bad evaluate message"}};
         }},
        {"error-without-id",
         [] {
             return WorkerMessage{ErrorMessage{std::nullopt, "unreadable line"}};
         }},
    };
}

} // namespace

TEST_CASE("every host message survives serialize and parse as one line")
{
    for (const auto &[kind, make] : hostMessages()) {
        SUBCASE(kind.c_str())
        {
            const HostMessage original = make();
            const std::string line = serialize(original);
            REQUIRE(!line.empty());
            CHECK(line.back() == '\n');
            CHECK(line.find('\n') == line.size() - 1); // exactly one line, whatever the strings hold

            const Expected<HostMessage> parsed = parseHostMessage(line);
            REQUIRE_MESSAGE(parsed.hasValue(), (parsed.hasValue() ? "" : parsed.error().message));
            REQUIRE(parsed->index() == original.index());
            CHECK(std::string(messageType(*parsed)) == std::string(messageType(original)));
            if (const auto *evaluate = std::get_if<EvaluateMessage>(&original))
                CHECK(sameRequest(std::get<EvaluateMessage>(*parsed).request, evaluate->request));
            else if (const auto *ping = std::get_if<PingMessage>(&original))
                CHECK(std::get<PingMessage>(*parsed) == *ping);
            CHECK(serialize(*parsed) == line);
        }
    }
}

TEST_CASE("every worker message survives serialize and parse, with or without its newline")
{
    for (const auto &[kind, make] : workerMessages()) {
        SUBCASE(kind.c_str())
        {
            const WorkerMessage original = make();
            const std::string line = serialize(original);
            CHECK(line.find('\n') == line.size() - 1);

            const Expected<WorkerMessage> parsed = parseWorkerMessage(line);
            REQUIRE_MESSAGE(parsed.hasValue(), (parsed.hasValue() ? "" : parsed.error().message));
            CHECK(*parsed == original);
            // Without the newline too.
            CHECK(parseWorkerMessage(std::string_view(line).substr(0, line.size() - 1)).hasValue());
        }
    }
}

TEST_CASE("a cubin travels as base64")
{
    const std::string cubin = allBytes();
    const auto json = nlohmann::json::parse(serialize(HostMessage{EvaluateMessage{sampleRequest(cubin)}}));
    CHECK(json.at("request").at("cubin").get<std::string>() == base64Encode(cubin));
    CHECK(json.at("v").get<int>() == kProtocolVersion);
    CHECK(json.at("type").get<std::string>() == std::string("evaluate"));
    CHECK(json.at("id").get<std::int64_t>() == std::int64_t(42));
}

TEST_CASE("invalid UTF-8 is replaced, not thrown")
{
    Evaluation evaluation = sampleEvaluation();
    evaluation.compile.log = "bad byte \xff here";
    const std::string line = serialize(WorkerMessage{ResultMessage{1, evaluation, false}});
    const auto parsed = parseWorkerMessage(line);
    REQUIRE(parsed.hasValue());
    const std::string log = std::get<ResultMessage>(*parsed).evaluation.compile.log;
    CHECK(log.find("bad byte ") == 0);
    CHECK(log.find("\xef\xbf\xbd") != std::string::npos); // U+FFFD
}

TEST_CASE("malformed lines are refused with a clear error")
{
    const struct
    {
        const char *name;
        bool fromHost;
        std::string line;
        std::string expected;
    } rows[] = {
        {"empty", true, "", "empty protocol line"},
        {"only newline", false, "\n", "empty protocol line"},
        {"not json", true, "hello world", "not JSON"},
        {"truncated", true, R"({"v":2,"type":"ping","id":1)", "not JSON"},
        {"array", false, "[1,2,3]", "not a JSON object"},
        {"no version", true, R"({"type":"ping","id":1})", "without a protocol version"},
        {"version as text", true, R"({"v":"1","type":"ping","id":1})", "without a protocol version"},
        {"newer version", true, R"({"v":3,"type":"ping","id":1})", "protocol version 3"},
        {"version 1", true, R"({"v":1,"type":"ping","id":1})", "protocol version 1"},
        {"older version", false, R"({"v":0,"type":"pong","id":1})", "protocol version 0"},
        {"no type", true, R"({"v":2,"id":1})", "without a message type"},
        {"unknown type", true, R"({"v":2,"type":"frobnicate"})", "unknown message type \"frobnicate\""},
        {"worker type from host", true, R"({"v":2,"type":"pong","id":1})", "sent by workers"},
        {"host type from worker", false, R"({"v":2,"type":"shutdown"})", "sent by the host"},
        {"ping without id", true, R"({"v":2,"type":"ping"})", "missing field \"id\""},
        {"busy without extra time", false, R"({"v":2,"type":"busy","id":1})", "bad busy message"},
        {"busy with negative time", false, R"({"v":2,"type":"busy","id":1,"extraMs":-5})", "negative"},
        {"busy from host", true, R"({"v":2,"type":"busy","id":1,"extraMs":5})", "sent by workers"},
        {"unknown precision", true,
         R"({"v":2,"type":"evaluate","id":3,"request":{"op":{"name":"relu"},)"
         R"("candidate":{"op":"relu","source":"","launchPlan":""},"settings":{"precision":"fp8"}}})",
         "unknown precision policy 'fp8'"},
        {"ping with text id", true, R"({"v":2,"type":"ping","id":"7"})", "\"id\" is not an integer"},
        {"evaluate without request", true, R"({"v":2,"type":"evaluate","id":3})", "bad evaluate message"},
        {"evaluate with bad cubin", true,
         R"({"v":2,"type":"evaluate","id":3,"request":{"op":{"name":"relu"},)"
         R"("candidate":{"op":"relu","source":"","launchPlan":""},"cubin":"!!!!"}})",
         "field \"cubin\": invalid base64"},
        {"result with unknown status", false, R"({"v":2,"type":"result","id":3,"evaluation":{"status":"frobnicated"}})",
         "bad result message"},
        {"result without evaluation", false, R"({"v":2,"type":"result","id":3})", "bad result message"},
        {"hello without pid", false, R"({"v":2,"type":"hello","protocolVersion":1})", "bad hello message"},
        {"hello with wrong field type", false, R"({"v":2,"type":"hello","protocolVersion":1,"pid":"many"})",
         "bad hello message"},
        {"error without message", false, R"({"v":2,"type":"error","id":1})", "bad error message"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            const std::string error =
                row.fromHost ? (parseHostMessage(row.line) ? "" : parseHostMessage(row.line).error().message)
                             : (parseWorkerMessage(row.line) ? "" : parseWorkerMessage(row.line).error().message);
            REQUIRE_MESSAGE(!error.empty(), "the line was accepted");
            CHECK_MESSAGE(error.find(row.expected) != std::string::npos, error);
        }
    }
}

TEST_CASE("base64 of the RFC 4648 test vectors")
{
    // RFC 4648, section 10.
    const struct
    {
        const char *name;
        std::string plain;
        std::string encoded;
    } rows[] = {
        {"empty", "", ""},
        {"f", "f", "Zg=="},
        {"fo", "fo", "Zm8="},
        {"foo", "foo", "Zm9v"},
        {"foob", "foob", "Zm9vYg=="},
        {"fooba", "fooba", "Zm9vYmE="},
        {"foobar", "foobar", "Zm9vYmFy"},
        {"zeros", std::string(5, '\0'), "AAAAAAA="},
        {"high bytes", "\xff\xfe\xfd", "//79"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            CHECK(base64Encode(row.plain) == row.encoded);
            const auto decoded = base64Decode(row.encoded);
            REQUIRE(decoded.hasValue());
            CHECK(*decoded == row.plain);
        }
    }
}

TEST_CASE("binary data of any size survives base64 in one line")
{
    // Sizes around the encoder's chunk boundary (49152 input bytes) and a cubin-sized blob.
    for (int size : {1, 2, 3, 255, 256, 49151, 49152, 49153, 98304, 500000}) {
        CAPTURE(size);
        std::mt19937 random(size);
        std::string bytes(static_cast<std::size_t>(size), '\0');
        for (char &byte : bytes)
            byte = static_cast<char>(random() & 0xff);
        const std::string text = base64Encode(bytes);
        CHECK(text.size() == static_cast<std::size_t>((size + 2) / 3 * 4));
        CHECK(text.find_first_of("\r\n") == std::string::npos);
        const auto decoded = base64Decode(text);
        REQUIRE(decoded.hasValue());
        CHECK(*decoded == bytes);
    }
}

TEST_CASE("invalid base64 is refused with the offset of the first bad character")
{
    const struct
    {
        const char *name;
        const char *text;
        const char *expected;
    } rows[] = {
        {"length", "Zm9", "not a multiple of 4"},
        {"bad character", "Zm9!", "invalid base64 character at offset 3"},
        {"whitespace", " Zm9v   ", "invalid base64 character at offset 0"},
        {"padding in the middle", "Zg==Zg==", "invalid base64 character at offset 2"},
        {"only padding", "====", "invalid base64 character"},
        {"url alphabet", "-_-_", "invalid base64 character at offset 0"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            const auto decoded = base64Decode(row.text);
            REQUIRE(!decoded.hasValue());
            CHECK_MESSAGE(decoded.error().message.find(row.expected) != std::string::npos, decoded.error().message);
        }
    }
}

TEST_CASE("evaluation settings round-trip through JSON, missing fields keep their defaults")
{
    EvalSettings settings;
    settings.trials = 3;
    settings.warmupRuns = 2;
    settings.timedRuns = 250;
    settings.timeBudgetMs = 123.5;
    settings.seed = std::numeric_limits<std::uint64_t>::max();
    settings.suspiciousSpeedup = 20;
    settings.timeoutMs = 900;
    const nlohmann::json json = settings;
    CHECK(json.get<EvalSettings>() == settings);
    CHECK(nlohmann::json::object().get<EvalSettings>() == EvalSettings{});
}
