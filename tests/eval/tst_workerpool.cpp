// The worker pool against a purpose-built fake worker (tests/helpers/fakeworker.cpp): starting, probing devices,
// which worker takes which request, cancelling and stopping; worker processes and the worker loop; the real
// `kx worker` on a machine without a GPU; and the evaluation service with real NVRTC. Hangs, crashes and restarts
// are tst_workerrestarts.
#include "workerpooltestsupport.h"

#include "core/eval/evaluationservice.h"
#include "core/eval/protocol.h"
#include "core/eval/workerpool.h"
#include "core/eval/workerprocess.h"
#include "core/plan/nvrtccompiler.h"

#include "doctestprinters.h"
#include "temporarydir.h"
#include "waituntil.h"

#include <doctest/doctest.h>

#include <atomic>
#include <fstream>

using namespace kx;
using namespace kx::test;

namespace {

doctest::skip needsNvrtc()
{
    return doctest::skip(!NvrtcCompiler::available());
}

Op reluOp()
{
    Op op;
    op.name = "relu";
    op.inputs = {{"x", {"N"}, "float32"}};
    op.outputs = {{"out", {"N"}, "float32"}};
    op.shapeSets = {{{"N", 4096}}, {{"N", 100003}}};
    op.bytesMovedExpr = "8 * N";
    op.flopsExpr = "N";
    return op;
}

const char *kReluSource = R"(extern "C" __global__ void relu_kernel()"
                          R"(const float* __restrict__ x, float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
)";

std::string reluPlan(int block)
{
    const std::string size = std::to_string(block);
    nlohmann::json args = nlohmann::json::array();
    args.push_back({{"input", "x"}});
    args.push_back({{"output", "out"}});
    args.push_back({{"int", "N"}});
    nlohmann::json step;
    step["kernel"] = "relu_kernel";
    step["grid"] = nlohmann::json::array({"ceil_div(N, " + size + ")"});
    step["block"] = nlohmann::json::array({size});
    step["args"] = args;
    nlohmann::json plan;
    plan["steps"] = nlohmann::json::array({step});
    return plan.dump();
}

Candidate candidate(const std::string &source, const std::string &plan, const std::string &behaviour)
{
    Candidate candidate;
    candidate.opName = "relu";
    candidate.source = source;
    candidate.launchPlan = plan;
    candidate.id = makeCandidateId(source, plan);
    candidate.description = behaviour;
    return candidate;
}

std::int64_t requestsSent(const WorkerPool &pool)
{
    std::int64_t sent = 0;
    for (const WorkerStatus &worker : pool.workers())
        sent += worker.requestsSent;
    return sent;
}

class CountingObserver : public EvaluationObserver
{
public:
    void compiled(const Candidate &, const CompileResult &result) override
    {
        ++compiledCount;
        if (!result.ok)
            ++compileFailures;
    }
    void evaluated(const Candidate &, const Evaluation &) override { ++evaluatedCount; }

    std::atomic<int> compiledCount = 0;
    std::atomic<int> compileFailures = 0;
    std::atomic<int> evaluatedCount = 0;
};

} // namespace

TEST_CASE("a worker compiles for its GPU's architecture, Hopper's arch-specific one on a 9.0")
{
    CHECK(archForComputeCapability("8.0") == std::string("sm_80"));
    CHECK(archForComputeCapability("8.6") == std::string("sm_86"));
    CHECK(archForComputeCapability("9.0") == std::string("sm_90a"));
    CHECK(archForComputeCapability("12.0") == std::string("sm_120"));
    CHECK(archForComputeCapability("9") == std::string());
    CHECK(archForComputeCapability("x.0") == std::string());
}

TEST_CASE("one worker answers every request")
{
    WorkerPool pool(fakeOptions());
    const Status started = pool.start();
    REQUIRE_MESSAGE(started.isOk(), (started.isOk() ? "" : started.error().message));
    const auto workers = pool.workers();
    REQUIRE(workers.size() == std::size_t(1));
    CHECK(workers[0].gpu.name == std::string("Fake GPU 0"));
    CHECK(workers[0].arch == std::string("sm_90a")); // the fake GPU is a 9.0: Hopper's arch-specific target
    CHECK(pool.archs() == std::vector<std::string>{"sm_90a"});

    std::vector<std::future<Expected<Evaluation>>> futures;
    for (int i = 0; i < 3; ++i)
        futures.push_back(pool.submit(request("ok")));
    long pid = -1;
    for (auto &future : futures) {
        const auto result = await(std::move(future));
        REQUIRE_EVALUATION(result);
        CHECK(result->status == EvalStatus::Correct);
        CHECK(result->candidateId == std::string("candidate-ok"));
        CHECK(result->gpu.name == std::string("Fake GPU 0"));
        CHECK_MESSAGE(result->message.find("cubin 20 bytes (ELF)") != std::string::npos, result->message);
        if (pid == -1)
            pid = workerPid(*result);
        CHECK(workerPid(*result) == pid); // one worker, never restarted
    }
    CHECK(pool.workers()[0].requestsSent == std::int64_t(3));
    CHECK(pool.workers()[0].restarts == 0);
    CHECK_MESSAGE(waitUntil([&] { return pool.workers()[0].state == WorkerState::Idle; }, 60s),
                  toString(pool.workers()[0].state));
}

TEST_CASE("a slow start within the timeout")
{
    WorkerPoolOptions options = fakeOptions({"--start-delay-ms", "300"});
    options.startTimeout = 60s;
    WorkerPool pool(options);
    const Status started = pool.start();
    REQUIRE_MESSAGE(started.isOk(), (started.isOk() ? "" : started.error().message));
    const auto result = await(pool.submit(request("ok")));
    REQUIRE_EVALUATION(result);
    CHECK(result->status == EvalStatus::Correct);
}

TEST_CASE("a slow start past the timeout fails cleanly")
{
    WorkerPoolOptions options = fakeOptions({"--start-delay-ms", "600000"});
    options.startTimeout = 300ms;
    WorkerPool pool(options);
    const Status started = pool.start();
    REQUIRE(!started.isOk());
    CHECK_MESSAGE(started.error().message.find("did not say hello within 300 ms") != std::string::npos,
                  started.error().message);
    REQUIRE(pool.workers().size() == std::size_t(1));
    CHECK(pool.workers()[0].state == WorkerState::Failed);
    CHECK(pool.workers()[0].pid == std::int64_t(0));

    const auto refused = await(pool.submit(request("ok")));
    REQUIRE(!refused.hasValue());
    CHECK_MESSAGE(refused.error().message.find("no GPU worker is running") != std::string::npos,
                  refused.error().message);
}

TEST_CASE("a bad hello fails the start with the reason")
{
    const struct
    {
        const char *name;
        const char *mode;
        const char *expected;
    } rows[] = {
        {"garbage", "garbage", "sent an unreadable hello: malformed protocol line (not JSON)"},
        {"wrong version", "wrong-version", "protocol version 3 is not supported"},
        {"exits", "exit", "exited before its hello (exit code 3)"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            WorkerPool pool(fakeOptions({"--hello", row.mode}));
            const Status started = pool.start();
            REQUIRE(!started.isOk());
            CHECK_MESSAGE(started.error().message.find(row.expected) != std::string::npos, started.error().message);
            if (std::string(row.mode) == "exit") {
                CHECK_MESSAGE(started.error().message.find("cannot initialise") != std::string::npos,
                              started.error().message);
            }
        }
    }
}

TEST_CASE("a missing program fails the start")
{
    WorkerPoolOptions options = fakeOptions();
    options.command = {"/nonexistent/kx-worker"};
    WorkerPool pool(options);
    const Status started = pool.start();
    REQUIRE(!started.isOk());
    CHECK_MESSAGE(started.error().message.find("cannot start /nonexistent/kx-worker") != std::string::npos,
                  started.error().message);
}

TEST_CASE("several workers run in parallel")
{
    TemporaryDir barrier;
    REQUIRE(barrier.isValid());
    WorkerPool pool(fakeOptions({"--gpus", "2"}, {0, 1}));
    REQUIRE(pool.start().isOk());
    REQUIRE(pool.workers().size() == std::size_t(2));
    for (const WorkerStatus &worker : pool.workers())
        CHECK(worker.state == WorkerState::Idle);

    // Each candidate waits until both have arrived: only two workers running at once can finish them.
    const std::string behaviour = "barrier:" + barrier.path() + ":2";
    auto a = pool.submit(request(behaviour));
    auto b = pool.submit(request(behaviour));
    const auto first = await(std::move(a));
    const auto second = await(std::move(b));
    REQUIRE_EVALUATION(first);
    REQUIRE_EVALUATION(second);
    CHECK(first->status == EvalStatus::Correct);
    CHECK(second->status == EvalStatus::Correct);
    CHECK(first->gpu.name != second->gpu.name);
    CHECK(pool.workers()[0].requestsSent == std::int64_t(1));
    CHECK(pool.workers()[1].requestsSent == std::int64_t(1));
}

TEST_CASE("a missing device is listed as failed")
{
    WorkerPool pool(fakeOptions({"--gpus", "1"}, {0, 1}));
    REQUIRE(pool.start().isOk()); // one worker is enough to run
    const auto workers = pool.workers();
    REQUIRE(workers.size() == std::size_t(2));
    CHECK(workers[0].state == WorkerState::Idle);
    CHECK(workers[1].state == WorkerState::Failed);
    CHECK_MESSAGE(workers[1].lastError.find("no usable GPU on device 1") != std::string::npos, workers[1].lastError);
    const auto result = await(pool.submit(request("ok")));
    REQUIRE_EVALUATION(result);
    CHECK(result->gpu.name == std::string("Fake GPU 0"));
}

TEST_CASE("all devices are probed")
{
    WorkerPool pool(fakeOptions({"--gpus", "3"}, {}));
    const Status started = pool.start();
    REQUIRE_MESSAGE(started.isOk(), (started.isOk() ? "" : started.error().message));
    const auto workers = pool.workers();
    REQUIRE(workers.size() == std::size_t(3));
    for (int device = 0; device < 3; ++device) {
        CAPTURE(device);
        CHECK(workers[device].device == device);
        CHECK(workers[device].gpu.name == "Fake GPU " + std::to_string(device));
        CHECK((workers[device].state == WorkerState::Idle || workers[device].state == WorkerState::Busy));
    }
}

TEST_CASE("no GPU at all fails the start and refuses requests")
{
    WorkerPool pool(fakeOptions({"--gpus", "0"}, {}));
    const Status started = pool.start();
    REQUIRE(!started.isOk());
    CHECK_MESSAGE(started.error().message.find("no usable GPU on device 0: fake: there is no device 0")
                      != std::string::npos,
                  started.error().message);
    const auto refused = await(pool.submit(request("ok")));
    CHECK(!refused.hasValue());
}

TEST_CASE("requests go only to workers of their arch")
{
    WorkerPool pool(fakeOptions());
    REQUIRE(pool.start().isOk());
    EvaluateRequest wrongArch = request("ok");
    wrongArch.arch = "sm_80";
    const auto refused = await(pool.submit(wrongArch));
    REQUIRE(!refused.hasValue());
    CHECK_MESSAGE(refused.error().message.find("no GPU worker for sm_80") != std::string::npos,
                  refused.error().message);

    EvaluateRequest rightArch = request("ok");
    rightArch.arch = "sm_90a";
    const auto accepted = await(pool.submit(rightArch));
    REQUIRE_EVALUATION(accepted);
    CHECK_MESSAGE(accepted->message.find("for sm_90a") != std::string::npos, accepted->message);
}

TEST_CASE("requests for a device go only to its worker")
{
    WorkerPool pool(fakeOptions({"--gpus", "2"}, {0, 1}));
    REQUIRE(pool.start().isOk());
    for (int i = 0; i < 4; ++i) {
        EvaluateRequest pinned = request("ok");
        pinned.device = 1;
        const auto result = await(pool.submit(pinned));
        REQUIRE_EVALUATION(result);
        CHECK(result->gpu.name == std::string("Fake GPU 1"));
    }
    CHECK(pool.workers()[0].requestsSent == std::int64_t(0));
    CHECK(pool.workers()[1].requestsSent == std::int64_t(4));

    EvaluateRequest absent = request("ok");
    absent.device = 5;
    const auto refused = await(pool.submit(absent));
    REQUIRE(!refused.hasValue());
    CHECK_MESSAGE(refused.error().message.find("no GPU worker on device 5 is running") != std::string::npos,
                  refused.error().message);
}

TEST_CASE("cancelling completes the queued requests only")
{
    TemporaryDir barrier;
    REQUIRE(barrier.isValid());
    WorkerPool pool(fakeOptions());
    REQUIRE(pool.start().isOk());
    // The first request blocks the only worker until a second file appears in the barrier folder.
    auto blocked = pool.submit(request("barrier:" + barrier.path() + ":2"));
    REQUIRE_MESSAGE(waitUntil([&] { return pool.workers()[0].state == WorkerState::Busy; }, 60s),
                    toString(pool.workers()[0].state));
    std::vector<std::future<Expected<Evaluation>>> waiting;
    for (int i = 0; i < 3; ++i)
        waiting.push_back(pool.submit(request("ok")));
    CHECK(pool.cancelPending() == std::size_t(3));
    for (auto &future : waiting) {
        const auto result = await(std::move(future));
        REQUIRE(!result.hasValue());
        CHECK(result.error().message.find("cancelled") != std::string::npos);
    }
    std::ofstream(barrier.filePath("release")) << "go";
    const auto released = await(std::move(blocked));
    REQUIRE_EVALUATION(released);
    CHECK(released->status == EvalStatus::Correct);
}

TEST_CASE("stopping cancels busy work")
{
    auto pool = std::make_unique<WorkerPool>(fakeOptions());
    REQUIRE(pool->start().isOk());
    auto hung = pool->submit(request("hang", 600000));
    REQUIRE_MESSAGE(waitUntil([&] { return pool->workers()[0].state == WorkerState::Busy; }, 60s),
                    toString(pool->workers()[0].state));
    auto queued = pool->submit(request("ok"));
    pool->stop();
    const auto hungResult = await(std::move(hung));
    const auto queuedResult = await(std::move(queued));
    REQUIRE(!hungResult.hasValue());
    CHECK(hungResult.error().message.find("cancelled") != std::string::npos);
    CHECK(!queuedResult.hasValue());
    CHECK(pool->workers()[0].state == WorkerState::Stopped);
    const auto late = await(pool->submit(request("ok")));
    REQUIRE(!late.hasValue());
    CHECK(late.error().message.find("stopped") != std::string::npos);
}

TEST_CASE("the worker loop answers pings, reports unreadable requests and shuts down")
{
    WorkerProcess process;
    REQUIRE(process.start({KX_FAKE_WORKER, "--device", "0"}).isOk());
    const auto deadline = WorkerProcess::Clock::now() + kPatience;
    std::string line;
    REQUIRE(process.readLine(line, deadline) == WorkerProcess::ReadStatus::Line);
    CHECK(std::holds_alternative<HelloMessage>(*parseWorkerMessage(line)));

    REQUIRE(process.write(serialize(HostMessage{PingMessage{5}}), deadline).isOk());
    REQUIRE(process.readLine(line, deadline) == WorkerProcess::ReadStatus::Line);
    CHECK(std::get<PongMessage>(*parseWorkerMessage(line)).id == std::int64_t(5));

    // An unreadable request is answered with an error naming its id; the worker carries on.
    REQUIRE(process.write("{\"v\":2,\"type\":\"evaluate\",\"id\":9}\n", deadline).isOk());
    REQUIRE(process.readLine(line, deadline) == WorkerProcess::ReadStatus::Line);
    const auto error = std::get<ErrorMessage>(*parseWorkerMessage(line));
    CHECK(error.id == std::optional<std::int64_t>(9));
    CHECK_MESSAGE(error.message.find("bad evaluate message") != std::string::npos, error.message);
    REQUIRE(process.write("not json at all\n", deadline).isOk());
    REQUIRE(process.readLine(line, deadline) == WorkerProcess::ReadStatus::Line);
    CHECK(std::get<ErrorMessage>(*parseWorkerMessage(line)).id == std::optional<std::int64_t>());

    REQUIRE(process.write(serialize(HostMessage{ShutdownMessage{}}), deadline).isOk());
    CHECK(process.readLine(line, deadline) == WorkerProcess::ReadStatus::Closed);
    const ProcessExit exit = process.waitForExit(deadline);
    CHECK(exit.success());
    CHECK_MESSAGE(process.stderrTail().find("not JSON") != std::string::npos, process.stderrTail());
}

TEST_CASE("a worker process reports its lines, exit code and stderr")
{
    WorkerProcess process;
    REQUIRE(process.start({"/bin/sh", "-c", "echo one; echo two >&2; echo three; exit 5"}).isOk());
    std::string line;
    const auto deadline = WorkerProcess::Clock::now() + kPatience;
    REQUIRE(process.readLine(line, deadline) == WorkerProcess::ReadStatus::Line);
    CHECK(line == std::string("one"));
    REQUIRE(process.readLine(line, deadline) == WorkerProcess::ReadStatus::Line);
    CHECK(line == std::string("three"));
    CHECK(process.readLine(line, deadline) == WorkerProcess::ReadStatus::Closed);
    const ProcessExit exit = process.waitForExit(deadline);
    CHECK(!exit.signaled);
    CHECK(exit.code == 5);
    CHECK(process.stderrTail() == std::string("two\n"));
}

TEST_CASE("writing to a dead worker process fails instead of killing the host")
{
    WorkerProcess process;
    REQUIRE(process.start({"/bin/true"}).isOk());
    process.waitForExit(WorkerProcess::Clock::now() + kPatience);
    // Without the SIGPIPE guard this would kill the test process.
    const Status written = process.write(std::string(1 << 20, 'x'), WorkerProcess::Clock::now() + kPatience);
    CHECK(!written.isOk());
}

TEST_CASE("the real kx worker reports a missing GPU")
{
    WorkerProcess process;
    REQUIRE(process.start({KX_BINARY_DIR "/kx", "worker", "--device", "0"}).isOk());
    std::string line;
    REQUIRE(process.readLine(line, WorkerProcess::Clock::now() + kPatience) == WorkerProcess::ReadStatus::Line);
    const auto message = parseWorkerMessage(line);
    REQUIRE_MESSAGE(message.hasValue(), (message.hasValue() ? "" : message.error().message));
    const auto *hello = std::get_if<HelloMessage>(&*message);
    REQUIRE(hello);
    CHECK(hello->protocolVersion == kProtocolVersion);
    CHECK(hello->pid == std::int64_t(process.pid()));
    if (hello->error.empty()) {
        process.closeStdin();
        process.waitForExit(WorkerProcess::Clock::now() + kPatience);
        MESSAGE("skipped: this machine has a usable GPU, so kx worker does not report a missing one");
        return;
    }
    CHECK_MESSAGE(hello->error.find("no usable GPU on device 0") != std::string::npos, hello->error);
    CHECK(hello->gpu.name.empty());
    const ProcessExit exit = process.waitForExit(WorkerProcess::Clock::now() + kPatience);
    CHECK(!exit.signaled);
    CHECK(exit.code == 4); // kx::cli::NoGpu
    CHECK_MESSAGE(process.stderrTail().find("no usable GPU") != std::string::npos, process.stderrTail());

    // Through the pool: start() fails with the worker's reason.
    WorkerPoolOptions options;
    options.command = {KX_BINARY_DIR "/kx", "worker"};
    WorkerPool pool(options);
    const Status started = pool.start();
    REQUIRE(!started.isOk());
    CHECK_MESSAGE(started.error().message.find(hello->error) != std::string::npos, started.error().message);
}

TEST_CASE("the service rejects broken kernels without a worker" * needsNvrtc())
{
    CountingObserver observer;
    EvaluationService service(std::make_unique<WorkerPool>(fakeOptions()), {}, &observer);
    const Status started = service.start();
    REQUIRE_MESSAGE(started.isOk(), (started.isOk() ? "" : started.error().message));
    CHECK(service.targetArch() == std::string("sm_90a"));

    const std::string broken = "extern \"C\" __global__ void relu_kernel(const float* x, float* out, int n)\n"
                               "{\n    out[0] = x[0] +;\n}\n";
    const auto compileError = await(service.submit(reluOp(), candidate(broken, reluPlan(256), "ok"), {}));
    REQUIRE_EVALUATION(compileError);
    CHECK(compileError->status == EvalStatus::CompileError);
    CHECK(!compileError->message.empty());
    CHECK(!compileError->compile.log.empty());
    CHECK(compileError->gpu.name == std::string("Fake GPU 0"));

    // 2048 threads per block is over every GPU's limit.
    const auto planError = await(service.submit(reluOp(), candidate(kReluSource, reluPlan(2048), "ok"), {}));
    REQUIRE_EVALUATION(planError);
    CHECK(planError->status == EvalStatus::PlanError);
    CHECK_MESSAGE(planError->message.find("launch plan") != std::string::npos, planError->message);
    CHECK(planError->compile.registers > 0);

    const auto unparsable = await(service.submit(reluOp(), candidate(kReluSource, "{not json", "ok"), {}));
    REQUIRE_EVALUATION(unparsable);
    CHECK(unparsable->status == EvalStatus::PlanError);

    CHECK(requestsSent(service.pool()) == std::int64_t(0));
    CHECK(observer.compiledCount.load() == 3);
    CHECK(observer.compileFailures.load() == 1);
    CHECK(observer.evaluatedCount.load() == 3);
}

TEST_CASE("the service sends compiled kernels to the workers" * needsNvrtc())
{
    CountingObserver observer;
    EvaluationService service(std::make_unique<WorkerPool>(fakeOptions()), {}, &observer);
    REQUIRE(service.start().isOk());
    EvalSettings settings;
    settings.trials = 6;
    const auto result = await(service.submit(reluOp(), candidate(kReluSource, reluPlan(256), "ok"), settings));
    REQUIRE_EVALUATION(result);
    CHECK(result->status == EvalStatus::Correct);
    // The fake worker saw a real cubin for the worker's arch, and the settings.
    CHECK_MESSAGE(result->message.find("(ELF) for sm_90a") != std::string::npos, result->message);
    CHECK(result->correctness.trials == 6);
    CHECK(result->compile.registers > 0);
    CHECK(requestsSent(service.pool()) == std::int64_t(1));
    CHECK(observer.evaluatedCount.load() == 1);

    // A worker crash still ends in exactly one evaluation.
    const auto crashed = await(service.submit(reluOp(), candidate(kReluSource, reluPlan(128), "crash"), settings));
    REQUIRE_EVALUATION(crashed);
    CHECK(crashed->status == EvalStatus::Crashed);
}

TEST_CASE("the service cancels and stops" * needsNvrtc())
{
    EvaluationService service(std::make_unique<WorkerPool>(fakeOptions()));
    // Before start() nothing is compiled: these wait, and cancelPending() drops every one of them.
    std::vector<std::future<Expected<Evaluation>>> futures;
    for (int block : {32, 64, 128, 256, 512})
        futures.push_back(service.submit(reluOp(), candidate(kReluSource, reluPlan(block), "ok"), {}));
    CHECK(service.cancelPending() == std::size_t(5));
    for (auto &future : futures) {
        const auto result = await(std::move(future));
        REQUIRE(!result.hasValue());
        CHECK_MESSAGE(result.error().message.find("cancelled") != std::string::npos, result.error().message);
    }

    REQUIRE(service.start().isOk());
    EvalSettings settings;
    settings.timeoutMs = 600000;
    auto hung = service.submit(reluOp(), candidate(kReluSource, reluPlan(256), "hang"), settings);
    CHECK_MESSAGE(waitUntil([&] { return requestsSent(service.pool()) == 1; }, 60s),
                  "requests sent: " << requestsSent(service.pool()));
    service.stop();
    const auto hungResult = await(std::move(hung));
    REQUIRE(!hungResult.hasValue());
    CHECK_MESSAGE(hungResult.error().message.find("cancelled") != std::string::npos, hungResult.error().message);
    const auto late = await(service.submit(reluOp(), candidate(kReluSource, reluPlan(64), "ok"), {}));
    REQUIRE(!late.hasValue());
    CHECK(late.error().message.find("stopped") != std::string::npos);
}
