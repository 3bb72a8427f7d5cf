// The worker protocol: every message survives serialize -> parse; bad lines give clear errors.
#include "core/eval/protocol.h"

#include <QtTest>

#include <functional>
#include <limits>
#include <map>
#include <random>

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

std::map<QString, std::function<HostMessage()>> hostMessages()
{
    return {
        {"evaluate", [] { return HostMessage{EvaluateMessage{sampleRequest("\x7f" "ELF binary")}}; }},
        {"evaluate-all-bytes", [] { return HostMessage{EvaluateMessage{sampleRequest(allBytes())}}; }},
        {"evaluate-empty-cubin", [] { return HostMessage{EvaluateMessage{sampleRequest("")}}; }},
        {"ping", [] { return HostMessage{PingMessage{17}}; }},
        {"shutdown", [] { return HostMessage{ShutdownMessage{}}; }},
    };
}

std::map<QString, std::function<WorkerMessage()>> workerMessages()
{
    return {
        {"hello", [] { return WorkerMessage{HelloMessage{kProtocolVersion, 4242, 1, sampleGpu(), ""}}; }},
        {"hello-no-gpu",
         [] { return WorkerMessage{HelloMessage{kProtocolVersion, 4242, 0, {}, "no usable GPU on device 0"}}; }},
        {"result", [] { return WorkerMessage{ResultMessage{42, sampleEvaluation(), false}}; }},
        {"result-must-exit", [] { return WorkerMessage{ResultMessage{43, sampleEvaluation(), true}}; }},
        {"pong", [] { return WorkerMessage{PongMessage{17}}; }},
        {"busy", [] { return WorkerMessage{BusyMessage{42, 600000, "measuring the baselines of relu"}}; }},
        {"error-with-id", [] { return WorkerMessage{ErrorMessage{12, "bad evaluate message"}}; }},
        {"error-without-id", [] { return WorkerMessage{ErrorMessage{std::nullopt, "unreadable line"}}; }},
    };
}

} // namespace

class tst_Protocol : public QObject
{
    Q_OBJECT

private slots:
    void hostRoundTrip_data()
    {
        QTest::addColumn<QString>("kind");
        for (const auto &[kind, make] : hostMessages())
            QTest::newRow(qPrintable(kind)) << kind;
    }

    void hostRoundTrip()
    {
        QFETCH(QString, kind);
        const HostMessage original = hostMessages().at(kind)();
        const std::string line = serialize(original);
        QVERIFY(!line.empty());
        QCOMPARE(line.back(), '\n');
        QCOMPARE(line.find('\n'), line.size() - 1); // exactly one line, whatever the strings hold

        const Expected<HostMessage> parsed = parseHostMessage(line);
        QVERIFY2(parsed.hasValue(), parsed.hasValue() ? "" : parsed.error().message.c_str());
        QCOMPARE(parsed->index(), original.index());
        QCOMPARE(std::string(messageType(*parsed)), std::string(messageType(original)));
        if (const auto *evaluate = std::get_if<EvaluateMessage>(&original))
            QVERIFY(sameRequest(std::get<EvaluateMessage>(*parsed).request, evaluate->request));
        else if (const auto *ping = std::get_if<PingMessage>(&original))
            QCOMPARE(std::get<PingMessage>(*parsed), *ping);
        QCOMPARE(serialize(*parsed), line);
    }

    void workerRoundTrip_data()
    {
        QTest::addColumn<QString>("kind");
        for (const auto &[kind, make] : workerMessages())
            QTest::newRow(qPrintable(kind)) << kind;
    }

    void workerRoundTrip()
    {
        QFETCH(QString, kind);
        const WorkerMessage original = workerMessages().at(kind)();
        const std::string line = serialize(original);
        QCOMPARE(line.find('\n'), line.size() - 1);

        const Expected<WorkerMessage> parsed = parseWorkerMessage(line);
        QVERIFY2(parsed.hasValue(), parsed.hasValue() ? "" : parsed.error().message.c_str());
        QVERIFY(*parsed == original);
        // Without the newline too.
        QVERIFY(parseWorkerMessage(std::string_view(line).substr(0, line.size() - 1)).hasValue());
    }

    void cubinTravelsAsBase64()
    {
        const std::string cubin = allBytes();
        const auto json = nlohmann::json::parse(serialize(HostMessage{EvaluateMessage{sampleRequest(cubin)}}));
        QCOMPARE(json.at("request").at("cubin").get<std::string>(), base64Encode(cubin));
        QCOMPARE(json.at("v").get<int>(), kProtocolVersion);
        QCOMPARE(json.at("type").get<std::string>(), std::string("evaluate"));
        QCOMPARE(json.at("id").get<std::int64_t>(), std::int64_t(42));
    }

    void invalidUtf8IsReplacedNotThrown()
    {
        Evaluation evaluation = sampleEvaluation();
        evaluation.compile.log = "bad byte \xff here";
        const std::string line = serialize(WorkerMessage{ResultMessage{1, evaluation, false}});
        const auto parsed = parseWorkerMessage(line);
        QVERIFY(parsed.hasValue());
        const std::string log = std::get<ResultMessage>(*parsed).evaluation.compile.log;
        QVERIFY(log.find("bad byte ") == 0);
        QVERIFY(log.find("\xef\xbf\xbd") != std::string::npos); // U+FFFD
    }

    void malformed_data()
    {
        QTest::addColumn<bool>("fromHost");
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("expected");

        QTest::newRow("empty") << true << "" << "empty protocol line";
        QTest::newRow("only newline") << false << "\n" << "empty protocol line";
        QTest::newRow("not json") << true << "hello world" << "not JSON";
        QTest::newRow("truncated") << true << R"({"v":2,"type":"ping","id":1)" << "not JSON";
        QTest::newRow("array") << false << "[1,2,3]" << "not a JSON object";
        QTest::newRow("no version") << true << R"({"type":"ping","id":1})" << "without a protocol version";
        QTest::newRow("version as text") << true << R"({"v":"1","type":"ping","id":1})"
                                         << "without a protocol version";
        QTest::newRow("newer version") << true << R"({"v":3,"type":"ping","id":1})" << "protocol version 3";
        QTest::newRow("version 1") << true << R"({"v":1,"type":"ping","id":1})" << "protocol version 1";
        QTest::newRow("older version") << false << R"({"v":0,"type":"pong","id":1})" << "protocol version 0";
        QTest::newRow("no type") << true << R"({"v":2,"id":1})" << "without a message type";
        QTest::newRow("unknown type") << true << R"({"v":2,"type":"frobnicate"})"
                                      << "unknown message type \"frobnicate\"";
        QTest::newRow("worker type from host") << true << R"({"v":2,"type":"pong","id":1})"
                                               << "sent by workers";
        QTest::newRow("host type from worker") << false << R"({"v":2,"type":"shutdown"})"
                                               << "sent by the host";
        QTest::newRow("ping without id") << true << R"({"v":2,"type":"ping"})" << "missing field \"id\"";
        QTest::newRow("busy without extra time") << false << R"({"v":2,"type":"busy","id":1})" << "bad busy message";
        QTest::newRow("busy with negative time") << false << R"({"v":2,"type":"busy","id":1,"extraMs":-5})"
                                                 << "negative";
        QTest::newRow("busy from host") << true << R"({"v":2,"type":"busy","id":1,"extraMs":5})"
                                        << "sent by workers";
        QTest::newRow("unknown precision") << true
                                           << R"({"v":2,"type":"evaluate","id":3,"request":{"op":{"name":"relu"},"candidate":{"op":"relu","source":"","launchPlan":""},"settings":{"precision":"fp8"}}})"
                                           << "unknown precision policy 'fp8'";
        QTest::newRow("ping with text id") << true << R"({"v":2,"type":"ping","id":"7"})"
                                           << "\"id\" is not an integer";
        QTest::newRow("evaluate without request") << true << R"({"v":2,"type":"evaluate","id":3})"
                                                  << "bad evaluate message";
        QTest::newRow("evaluate with bad cubin")
            << true
            << R"({"v":2,"type":"evaluate","id":3,"request":{"op":{"name":"relu"},"candidate":{"op":"relu","source":"","launchPlan":""},"cubin":"!!!!"}})"
            << "field \"cubin\": invalid base64";
        QTest::newRow("result with unknown status")
            << false << R"({"v":2,"type":"result","id":3,"evaluation":{"status":"frobnicated"}})"
            << "bad result message";
        QTest::newRow("result without evaluation") << false << R"({"v":2,"type":"result","id":3})"
                                                   << "bad result message";
        QTest::newRow("hello without pid") << false << R"({"v":2,"type":"hello","protocolVersion":1})"
                                           << "bad hello message";
        QTest::newRow("hello with wrong field type")
            << false << R"({"v":2,"type":"hello","protocolVersion":1,"pid":"many"})" << "bad hello message";
        QTest::newRow("error without message") << false << R"({"v":2,"type":"error","id":1})"
                                               << "bad error message";
    }

    void malformed()
    {
        QFETCH(bool, fromHost);
        QFETCH(QString, line);
        QFETCH(QString, expected);
        const std::string text = line.toStdString();
        const std::string error = fromHost ? (parseHostMessage(text) ? "" : parseHostMessage(text).error().message)
                                           : (parseWorkerMessage(text) ? "" : parseWorkerMessage(text).error().message);
        QVERIFY2(!error.empty(), "the line was accepted");
        QVERIFY2(error.find(expected.toStdString()) != std::string::npos, error.c_str());
    }

    void base64Vectors_data()
    {
        // RFC 4648, section 10.
        QTest::addColumn<QByteArray>("plain");
        QTest::addColumn<QByteArray>("encoded");
        QTest::newRow("empty") << QByteArray("") << QByteArray("");
        QTest::newRow("f") << QByteArray("f") << QByteArray("Zg==");
        QTest::newRow("fo") << QByteArray("fo") << QByteArray("Zm8=");
        QTest::newRow("foo") << QByteArray("foo") << QByteArray("Zm9v");
        QTest::newRow("foob") << QByteArray("foob") << QByteArray("Zm9vYg==");
        QTest::newRow("fooba") << QByteArray("fooba") << QByteArray("Zm9vYmE=");
        QTest::newRow("foobar") << QByteArray("foobar") << QByteArray("Zm9vYmFy");
        QTest::newRow("zeros") << QByteArray(5, '\0') << QByteArray("AAAAAAA=");
        QTest::newRow("high bytes") << QByteArray("\xff\xfe\xfd") << QByteArray("//79");
    }

    void base64Vectors()
    {
        QFETCH(QByteArray, plain);
        QFETCH(QByteArray, encoded);
        const std::string bytes(plain.constData(), plain.size());
        QCOMPARE(QByteArray::fromStdString(base64Encode(bytes)), encoded);
        const auto decoded = base64Decode(encoded.toStdString());
        QVERIFY(decoded.hasValue());
        QCOMPARE(*decoded, bytes);
    }

    void base64BinaryRoundTrip_data()
    {
        QTest::addColumn<int>("size");
        // Sizes around the encoder's chunk boundary (49152 input bytes) and a cubin-sized blob.
        for (int size : {1, 2, 3, 255, 256, 49151, 49152, 49153, 98304, 500000})
            QTest::newRow(qPrintable(QString::number(size))) << size;
    }

    void base64BinaryRoundTrip()
    {
        QFETCH(int, size);
        std::mt19937 random(size);
        std::string bytes(static_cast<std::size_t>(size), '\0');
        for (char &byte : bytes)
            byte = static_cast<char>(random() & 0xff);
        const std::string text = base64Encode(bytes);
        QCOMPARE(text.size(), static_cast<std::size_t>((size + 2) / 3 * 4));
        QVERIFY(text.find_first_of("\r\n") == std::string::npos);
        const auto decoded = base64Decode(text);
        QVERIFY(decoded.hasValue());
        QVERIFY(*decoded == bytes);
    }

    void base64Invalid_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("length") << "Zm9" << "not a multiple of 4";
        QTest::newRow("bad character") << "Zm9!" << "invalid base64 character at offset 3";
        QTest::newRow("whitespace") << " Zm9v   " << "invalid base64 character at offset 0";
        QTest::newRow("padding in the middle") << "Zg==Zg==" << "invalid base64 character at offset 2";
        QTest::newRow("only padding") << "====" << "invalid base64 character";
        QTest::newRow("url alphabet") << "-_-_" << "invalid base64 character at offset 0";
    }

    void base64Invalid()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const auto decoded = base64Decode(text.toStdString());
        QVERIFY(!decoded.hasValue());
        QVERIFY2(decoded.error().message.find(expected.toStdString()) != std::string::npos,
                 decoded.error().message.c_str());
    }

    void settingsJson()
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
        QCOMPARE(json.get<EvalSettings>(), settings);
        // Missing fields keep their defaults.
        QCOMPARE(nlohmann::json::object().get<EvalSettings>(), EvalSettings{});
    }
};

QTEST_GUILESS_MAIN(tst_Protocol)
#include "tst_protocol.moc"
