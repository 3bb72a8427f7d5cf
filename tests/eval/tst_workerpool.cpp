// The worker pool against a purpose-built fake worker (tests/helpers/fakeworker.cpp), the real `kx worker`
// on a machine without a GPU, and the evaluation service with real NVRTC.
#include "core/eval/evaluationservice.h"
#include "core/plan/nvrtccompiler.h"
#include "core/eval/protocol.h"
#include "core/eval/workerpool.h"
#include "core/eval/workerprocess.h"

#include <QtTest>

#include <atomic>
#include <csignal>
#include <fstream>
#include <regex>
#include <thread>

using namespace kx;
using namespace std::chrono_literals;

namespace {

// Generous bound for anything that should finish: it only stops a broken pool from hanging the suite.
constexpr auto kPatience = 120s;

WorkerPoolOptions fakeOptions(std::vector<std::string> extraArgs = {}, std::vector<int> devices = {0})
{
    WorkerPoolOptions options;
    options.command = {KX_FAKE_WORKER};
    options.command.insert(options.command.end(), extraArgs.begin(), extraArgs.end());
    options.devices = std::move(devices);
    options.startTimeout = 60s;
    options.exitGrace = 5s;
    return options;
}

EvaluateRequest request(const std::string &behaviour, double timeoutMs = 60000)
{
    EvaluateRequest request;
    request.op.name = "relu";
    request.candidate.opName = "relu";
    request.candidate.source = "// " + behaviour;
    request.candidate.launchPlan = "{}";
    request.candidate.id = "candidate-" + behaviour;
    request.candidate.description = behaviour;
    request.cubin = std::string("\x7f" "ELF fake cubin\0\x01\x02", 20);
    request.arch = "";
    request.settings.timeoutMs = timeoutMs;
    return request;
}

Expected<Evaluation> await(std::future<Expected<Evaluation>> future)
{
    if (future.wait_for(kPatience) != std::future_status::ready)
        return Error{"no completion within the test's patience"};
    return future.get();
}

// The pid the fake worker names in its "ok from pid N" message.
long workerPid(const Evaluation &evaluation)
{
    std::smatch match;
    static const std::regex pattern("ok from pid ([0-9]+)");
    if (!std::regex_search(evaluation.message, match, pattern))
        return -1;
    return std::stol(match[1]);
}

// QCOMPARE would pick kx::toString() for these enums by argument-dependent lookup and free its static text:
// compare their names instead.
#define COMPARE_STATUS(actual, expected) QCOMPARE(QString(toString(actual)), QString(toString(expected)))
#define TRY_COMPARE_STATE(actual, expected)                                                                        \
    QTRY_COMPARE_WITH_TIMEOUT(QString(toString(actual)), QString(toString(expected)), 60000)

#define VERIFY_EVALUATION(result)                                                                                  \
    QVERIFY2((result).hasValue(), (result).hasValue() ? "" : (result).error().message.c_str())

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

const char *kReluSource = R"(extern "C" __global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ out, int n)
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

class tst_WorkerPool : public QObject
{
    Q_OBJECT

private slots:
    void normalResults()
    {
        WorkerPool pool(fakeOptions());
        const Status started = pool.start();
        QVERIFY2(started.isOk(), started.isOk() ? "" : started.error().message.c_str());
        const auto workers = pool.workers();
        QCOMPARE(workers.size(), std::size_t(1));
        QCOMPARE(workers[0].gpu.name, std::string("Fake GPU 0"));
        QCOMPARE(workers[0].arch, std::string("sm_90"));
        QCOMPARE(pool.archs(), std::vector<std::string>{"sm_90"});

        std::vector<std::future<Expected<Evaluation>>> futures;
        for (int i = 0; i < 3; ++i)
            futures.push_back(pool.submit(request("ok")));
        long pid = -1;
        for (auto &future : futures) {
            const auto result = await(std::move(future));
            VERIFY_EVALUATION(result);
            COMPARE_STATUS(result->status, EvalStatus::Correct);
            QCOMPARE(result->candidateId, std::string("candidate-ok"));
            QCOMPARE(result->gpu.name, std::string("Fake GPU 0"));
            QVERIFY2(result->message.find("cubin 20 bytes (ELF)") != std::string::npos, result->message.c_str());
            if (pid == -1)
                pid = workerPid(*result);
            QCOMPARE(workerPid(*result), pid); // one worker, never restarted
        }
        QCOMPARE(pool.workers()[0].requestsSent, std::int64_t(3));
        QCOMPARE(pool.workers()[0].restarts, 0);
        TRY_COMPARE_STATE(pool.workers()[0].state, WorkerState::Idle);
    }

    void hangTimesOutAndWorkerRestarts()
    {
        WorkerPool pool(fakeOptions());
        QVERIFY(pool.start().isOk());
        const auto first = await(pool.submit(request("ok")));
        VERIFY_EVALUATION(first);

        const auto hung = await(pool.submit(request("hang", 300)));
        VERIFY_EVALUATION(hung);
        COMPARE_STATUS(hung->status, EvalStatus::Timeout);
        QCOMPARE(hung->candidateId, std::string("candidate-hang"));
        QVERIFY2(hung->message.find("no result within 300 ms") != std::string::npos, hung->message.c_str());
        QVERIFY2(hung->message.find("waited") != std::string::npos, hung->message.c_str());

        const auto next = await(pool.submit(request("ok")));
        VERIFY_EVALUATION(next);
        COMPARE_STATUS(next->status, EvalStatus::Correct);
        QVERIFY(workerPid(*next) != workerPid(*first));
        QCOMPARE(pool.workers()[0].restarts, 1);
    }

    // A worker measuring a baseline (an Inductor build can take minutes) says so; its request's deadline moves.
    void busyWorkerGetsMoreTime()
    {
        WorkerPool pool(fakeOptions());
        QVERIFY(pool.start().isOk());
        const auto patient = await(pool.submit(request("busy:5000:900", 300)));
        VERIFY_EVALUATION(patient);
        COMPARE_STATUS(patient->status, EvalStatus::Correct);
        QCOMPARE(pool.workers()[0].restarts, 0);

        // The extra time counts from the busy message: asking for none leaves the request's own timeout.
        const auto impatient = await(pool.submit(request("busy:0:900", 300)));
        VERIFY_EVALUATION(impatient);
        COMPARE_STATUS(impatient->status, EvalStatus::Timeout);
    }

    void crashReportsStderrAndSignal()
    {
        WorkerPool pool(fakeOptions());
        QVERIFY(pool.start().isOk());
        const auto crashed = await(pool.submit(request("crash")));
        VERIFY_EVALUATION(crashed);
        COMPARE_STATUS(crashed->status, EvalStatus::Crashed);
        QVERIFY2(crashed->message.find("crashing on purpose in candidate candidate-crash") != std::string::npos,
                 crashed->message.c_str());
        QVERIFY2(crashed->message.find("signal 6 (SIGABRT)") != std::string::npos, crashed->message.c_str());

        const auto next = await(pool.submit(request("ok")));
        VERIFY_EVALUATION(next);
        COMPARE_STATUS(next->status, EvalStatus::Correct);
        QCOMPARE(pool.workers()[0].restarts, 1);
    }

    // A worker killed from outside (an OOM killer, a scheduler's preemption) is not the candidate's doing: the
    // request runs again on the restarted worker. A second such death mid-evaluation is reported as a crash.
    void killedWorkerRunsItsRequestAgainOnce()
    {
        WorkerPool pool(fakeOptions());
        QVERIFY(pool.start().isOk());
        // Kills the worker well into its evaluation (busy for half a second of the request's three) in a process
        // other than notPid; returns the pid killed (0: none came). A worker killed the moment it takes a request,
        // before sending it, is a death while idle: the request goes to its successor and is not the test's case.
        const auto killBusyWorker = [&pool](std::int64_t notPid) -> std::int64_t {
            const auto deadline = std::chrono::steady_clock::now() + kPatience;
            while (std::chrono::steady_clock::now() < deadline) {
                const auto worker = pool.workers()[0];
                if (worker.state == WorkerState::Busy && worker.pid > 0 && worker.pid != notPid) {
                    std::this_thread::sleep_for(500ms);
                    const auto now = pool.workers()[0];
                    if (now.state != WorkerState::Busy || now.pid != worker.pid)
                        continue;
                    ::kill(pid_t(worker.pid), SIGKILL);
                    return worker.pid;
                }
                std::this_thread::sleep_for(5ms);
            }
            return 0;
        };

        auto once = pool.submit(request("sleep:3000"));
        const auto firstPid = killBusyWorker(0);
        QVERIFY(firstPid > 0);
        const auto again = await(std::move(once));
        VERIFY_EVALUATION(again);
        COMPARE_STATUS(again->status, EvalStatus::Correct);
        QVERIFY(workerPid(*again) != firstPid);
        QCOMPARE(pool.workers()[0].restarts, 1);
        QVERIFY2(pool.workers()[0].lastError.find("SIGKILL") != std::string::npos, pool.workers()[0].lastError.c_str());

        auto twice = pool.submit(request("sleep:3000"));
        const auto secondPid = killBusyWorker(0);
        QVERIFY(secondPid > 0);
        QVERIFY(killBusyWorker(secondPid) > 0);
        const auto crashed = await(std::move(twice));
        VERIFY_EVALUATION(crashed);
        COMPARE_STATUS(crashed->status, EvalStatus::Crashed);
        QVERIFY2(crashed->message.find("SIGKILL") != std::string::npos, crashed->message.c_str());
        QTRY_COMPARE_WITH_TIMEOUT(pool.workers()[0].restarts, 3, 60000);
    }

    void exitCodeIsReported()
    {
        WorkerPool pool(fakeOptions());
        QVERIFY(pool.start().isOk());
        const auto exited = await(pool.submit(request("exit:3")));
        VERIFY_EVALUATION(exited);
        COMPARE_STATUS(exited->status, EvalStatus::Crashed);
        QVERIFY2(exited->message.find("exit code 3") != std::string::npos, exited->message.c_str());
        QVERIFY2(exited->message.find("exiting on purpose") != std::string::npos, exited->message.c_str());
    }

    void garbageOutputIsCrashed()
    {
        WorkerPool pool(fakeOptions());
        QVERIFY(pool.start().isOk());
        // The fake hangs after its garbage line: a Timeout here would mean the pool ignored the garbage.
        const auto garbled = await(pool.submit(request("garbage", 60000)));
        VERIFY_EVALUATION(garbled);
        COMPARE_STATUS(garbled->status, EvalStatus::Crashed);
        QVERIFY2(garbled->message.find("this is not a protocol line") != std::string::npos,
                 garbled->message.c_str());

        const auto next = await(pool.submit(request("ok")));
        VERIFY_EVALUATION(next);
        COMPARE_STATUS(next->status, EvalStatus::Correct);
    }

    void mustExitRestartsTheWorker()
    {
        WorkerPool pool(fakeOptions());
        QVERIFY(pool.start().isOk());
        const auto first = await(pool.submit(request("ok")));
        VERIFY_EVALUATION(first);
        const auto fault = await(pool.submit(request("must-exit")));
        VERIFY_EVALUATION(fault);
        COMPARE_STATUS(fault->status, EvalStatus::Fault);
        QCOMPARE(fault->message, std::string("fake: illegal address (sticky)"));

        const auto next = await(pool.submit(request("ok")));
        VERIFY_EVALUATION(next);
        COMPARE_STATUS(next->status, EvalStatus::Correct);
        QVERIFY(workerPid(*next) != workerPid(*first));
        QCOMPARE(pool.workers()[0].restarts, 1);
    }

    void evaluatorExceptionKeepsTheWorker()
    {
        WorkerPool pool(fakeOptions());
        QVERIFY(pool.start().isOk());
        const auto thrown = await(pool.submit(request("throw")));
        VERIFY_EVALUATION(thrown);
        COMPARE_STATUS(thrown->status, EvalStatus::Crashed);
        QVERIFY2(thrown->message.find("fake evaluator refused the candidate") != std::string::npos,
                 thrown->message.c_str());
        const auto next = await(pool.submit(request("ok")));
        VERIFY_EVALUATION(next);
        COMPARE_STATUS(next->status, EvalStatus::Correct);
        QCOMPARE(pool.workers()[0].restarts, 0);
    }

    void chattyStderrAndLongResults()
    {
        WorkerPool pool(fakeOptions());
        QVERIFY(pool.start().isOk());
        const auto flooded = await(pool.submit(request("stderr-flood")));
        VERIFY_EVALUATION(flooded);
        COMPARE_STATUS(flooded->status, EvalStatus::Correct);

        const auto big = await(pool.submit(request("samples:200000")));
        VERIFY_EVALUATION(big);
        COMPARE_STATUS(big->status, EvalStatus::Correct);
        QCOMPARE(big->samplesMs.size(), std::size_t(200000));
        QCOMPARE(pool.workers()[0].restarts, 0);
    }

    void slowStartWithinTimeout()
    {
        WorkerPoolOptions options = fakeOptions({"--start-delay-ms", "300"});
        options.startTimeout = 60s;
        WorkerPool pool(options);
        const Status started = pool.start();
        QVERIFY2(started.isOk(), started.isOk() ? "" : started.error().message.c_str());
        const auto result = await(pool.submit(request("ok")));
        VERIFY_EVALUATION(result);
        COMPARE_STATUS(result->status, EvalStatus::Correct);
    }

    void slowStartPastTimeoutFailsCleanly()
    {
        WorkerPoolOptions options = fakeOptions({"--start-delay-ms", "600000"});
        options.startTimeout = 300ms;
        WorkerPool pool(options);
        const Status started = pool.start();
        QVERIFY(!started.isOk());
        QVERIFY2(started.error().message.find("did not say hello within 300 ms") != std::string::npos,
                 started.error().message.c_str());
        QCOMPARE(pool.workers().size(), std::size_t(1));
        COMPARE_STATUS(pool.workers()[0].state, WorkerState::Failed);
        QCOMPARE(pool.workers()[0].pid, std::int64_t(0));

        const auto refused = await(pool.submit(request("ok")));
        QVERIFY(!refused.hasValue());
        QVERIFY2(refused.error().message.find("no GPU worker is running") != std::string::npos,
                 refused.error().message.c_str());
    }

    void badHello_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("expected");
        QTest::newRow("garbage") << "garbage" << "sent an unreadable hello: malformed protocol line (not JSON)";
        QTest::newRow("wrong version") << "wrong-version" << "protocol version 3 is not supported";
        QTest::newRow("exits") << "exit" << "exited before its hello (exit code 3)";
    }

    void badHello()
    {
        QFETCH(QString, mode);
        QFETCH(QString, expected);
        WorkerPool pool(fakeOptions({"--hello", mode.toStdString()}));
        const Status started = pool.start();
        QVERIFY(!started.isOk());
        QVERIFY2(started.error().message.find(expected.toStdString()) != std::string::npos,
                 started.error().message.c_str());
        if (mode == "exit") {
            QVERIFY2(started.error().message.find("cannot initialise") != std::string::npos,
                     started.error().message.c_str());
        }
    }

    void missingProgram()
    {
        WorkerPoolOptions options = fakeOptions();
        options.command = {"/nonexistent/kx-worker"};
        WorkerPool pool(options);
        const Status started = pool.start();
        QVERIFY(!started.isOk());
        QVERIFY2(started.error().message.find("cannot start /nonexistent/kx-worker") != std::string::npos,
                 started.error().message.c_str());
    }

    void severalWorkersInParallel()
    {
        QTemporaryDir barrier;
        QVERIFY(barrier.isValid());
        WorkerPool pool(fakeOptions({"--gpus", "2"}, {0, 1}));
        QVERIFY(pool.start().isOk());
        QCOMPARE(pool.workers().size(), std::size_t(2));
        for (const WorkerStatus &worker : pool.workers())
            QVERIFY2(worker.state == WorkerState::Idle, toString(worker.state));

        // Each candidate waits until both have arrived: only two workers running at once can finish them.
        const std::string behaviour = "barrier:" + barrier.path().toStdString() + ":2";
        auto a = pool.submit(request(behaviour));
        auto b = pool.submit(request(behaviour));
        const auto first = await(std::move(a));
        const auto second = await(std::move(b));
        VERIFY_EVALUATION(first);
        VERIFY_EVALUATION(second);
        COMPARE_STATUS(first->status, EvalStatus::Correct);
        COMPARE_STATUS(second->status, EvalStatus::Correct);
        QVERIFY(first->gpu.name != second->gpu.name);
        QCOMPARE(pool.workers()[0].requestsSent, std::int64_t(1));
        QCOMPARE(pool.workers()[1].requestsSent, std::int64_t(1));
    }

    void missingDeviceIsListedAsFailed()
    {
        WorkerPool pool(fakeOptions({"--gpus", "1"}, {0, 1}));
        QVERIFY(pool.start().isOk()); // one worker is enough to run
        const auto workers = pool.workers();
        QCOMPARE(workers.size(), std::size_t(2));
        COMPARE_STATUS(workers[0].state, WorkerState::Idle);
        COMPARE_STATUS(workers[1].state, WorkerState::Failed);
        QVERIFY2(workers[1].lastError.find("no usable GPU on device 1") != std::string::npos,
                 workers[1].lastError.c_str());
        const auto result = await(pool.submit(request("ok")));
        VERIFY_EVALUATION(result);
        QCOMPARE(result->gpu.name, std::string("Fake GPU 0"));
    }

    void allDevicesAreProbed()
    {
        WorkerPool pool(fakeOptions({"--gpus", "3"}, {}));
        const Status started = pool.start();
        QVERIFY2(started.isOk(), started.isOk() ? "" : started.error().message.c_str());
        const auto workers = pool.workers();
        QCOMPARE(workers.size(), std::size_t(3));
        for (int device = 0; device < 3; ++device) {
            QCOMPARE(workers[device].device, device);
            QCOMPARE(workers[device].gpu.name, "Fake GPU " + std::to_string(device));
            QVERIFY(workers[device].state == WorkerState::Idle || workers[device].state == WorkerState::Busy);
        }
    }

    void noGpuAtAll()
    {
        WorkerPool pool(fakeOptions({"--gpus", "0"}, {}));
        const Status started = pool.start();
        QVERIFY(!started.isOk());
        QVERIFY2(started.error().message.find("no usable GPU on device 0: fake: there is no device 0")
                     != std::string::npos,
                 started.error().message.c_str());
        const auto refused = await(pool.submit(request("ok")));
        QVERIFY(!refused.hasValue());
    }

    void requestsGoOnlyToTheirArch()
    {
        WorkerPool pool(fakeOptions());
        QVERIFY(pool.start().isOk());
        EvaluateRequest wrongArch = request("ok");
        wrongArch.arch = "sm_80";
        const auto refused = await(pool.submit(wrongArch));
        QVERIFY(!refused.hasValue());
        QVERIFY2(refused.error().message.find("no GPU worker for sm_80") != std::string::npos,
                 refused.error().message.c_str());

        EvaluateRequest rightArch = request("ok");
        rightArch.arch = "sm_90";
        const auto accepted = await(pool.submit(rightArch));
        VERIFY_EVALUATION(accepted);
        QVERIFY2(accepted->message.find("for sm_90") != std::string::npos, accepted->message.c_str());
    }

    void requestsForADeviceGoOnlyToItsWorker()
    {
        WorkerPool pool(fakeOptions({"--gpus", "2"}, {0, 1}));
        QVERIFY(pool.start().isOk());
        for (int i = 0; i < 4; ++i) {
            EvaluateRequest pinned = request("ok");
            pinned.device = 1;
            const auto result = await(pool.submit(pinned));
            VERIFY_EVALUATION(result);
            QCOMPARE(result->gpu.name, std::string("Fake GPU 1"));
        }
        QCOMPARE(pool.workers()[0].requestsSent, std::int64_t(0));
        QCOMPARE(pool.workers()[1].requestsSent, std::int64_t(4));

        EvaluateRequest absent = request("ok");
        absent.device = 5;
        const auto refused = await(pool.submit(absent));
        QVERIFY(!refused.hasValue());
        QVERIFY2(refused.error().message.find("no GPU worker on device 5 is running") != std::string::npos,
                 refused.error().message.c_str());
    }

    void cancelPending()
    {
        QTemporaryDir barrier;
        QVERIFY(barrier.isValid());
        WorkerPool pool(fakeOptions());
        QVERIFY(pool.start().isOk());
        // The first request blocks the only worker until a second file appears in the barrier folder.
        auto blocked = pool.submit(request("barrier:" + barrier.path().toStdString() + ":2"));
        TRY_COMPARE_STATE(pool.workers()[0].state, WorkerState::Busy);
        std::vector<std::future<Expected<Evaluation>>> waiting;
        for (int i = 0; i < 3; ++i)
            waiting.push_back(pool.submit(request("ok")));
        QCOMPARE(pool.cancelPending(), std::size_t(3));
        for (auto &future : waiting) {
            const auto result = await(std::move(future));
            QVERIFY(!result.hasValue());
            QVERIFY(result.error().message.find("cancelled") != std::string::npos);
        }
        std::ofstream(barrier.filePath("release").toStdString()) << "go";
        const auto released = await(std::move(blocked));
        VERIFY_EVALUATION(released);
        COMPARE_STATUS(released->status, EvalStatus::Correct);
    }

    void stopCancelsBusyWork()
    {
        auto pool = std::make_unique<WorkerPool>(fakeOptions());
        QVERIFY(pool->start().isOk());
        auto hung = pool->submit(request("hang", 600000));
        TRY_COMPARE_STATE(pool->workers()[0].state, WorkerState::Busy);
        auto queued = pool->submit(request("ok"));
        pool->stop();
        const auto hungResult = await(std::move(hung));
        const auto queuedResult = await(std::move(queued));
        QVERIFY(!hungResult.hasValue());
        QVERIFY(hungResult.error().message.find("cancelled") != std::string::npos);
        QVERIFY(!queuedResult.hasValue());
        COMPARE_STATUS(pool->workers()[0].state, WorkerState::Stopped);
        const auto late = await(pool->submit(request("ok")));
        QVERIFY(!late.hasValue());
        QVERIFY(late.error().message.find("stopped") != std::string::npos);
    }

    void workerLoopAnswersPingErrorsAndShutdown()
    {
        WorkerProcess process;
        QVERIFY(process.start({KX_FAKE_WORKER, "--device", "0"}).isOk());
        const auto deadline = WorkerProcess::Clock::now() + kPatience;
        std::string line;
        QCOMPARE(process.readLine(line, deadline), WorkerProcess::ReadStatus::Line);
        QVERIFY(std::holds_alternative<HelloMessage>(*parseWorkerMessage(line)));

        QVERIFY(process.write(serialize(HostMessage{PingMessage{5}}), deadline).isOk());
        QCOMPARE(process.readLine(line, deadline), WorkerProcess::ReadStatus::Line);
        QCOMPARE(std::get<PongMessage>(*parseWorkerMessage(line)).id, std::int64_t(5));

        // An unreadable request is answered with an error naming its id; the worker carries on.
        QVERIFY(process.write("{\"v\":2,\"type\":\"evaluate\",\"id\":9}\n", deadline).isOk());
        QCOMPARE(process.readLine(line, deadline), WorkerProcess::ReadStatus::Line);
        const auto error = std::get<ErrorMessage>(*parseWorkerMessage(line));
        QCOMPARE(error.id, std::optional<std::int64_t>(9));
        QVERIFY2(error.message.find("bad evaluate message") != std::string::npos, error.message.c_str());
        QVERIFY(process.write("not json at all\n", deadline).isOk());
        QCOMPARE(process.readLine(line, deadline), WorkerProcess::ReadStatus::Line);
        QCOMPARE(std::get<ErrorMessage>(*parseWorkerMessage(line)).id, std::optional<std::int64_t>());

        QVERIFY(process.write(serialize(HostMessage{ShutdownMessage{}}), deadline).isOk());
        QCOMPARE(process.readLine(line, deadline), WorkerProcess::ReadStatus::Closed);
        const ProcessExit exit = process.waitForExit(deadline);
        QVERIFY(exit.success());
        QVERIFY2(process.stderrTail().find("not JSON") != std::string::npos, process.stderrTail().c_str());
    }

    void workerProcessReportsExitAndStderr()
    {
        WorkerProcess process;
        QVERIFY(process.start({"/bin/sh", "-c", "echo one; echo two >&2; echo three; exit 5"}).isOk());
        std::string line;
        const auto deadline = WorkerProcess::Clock::now() + kPatience;
        QCOMPARE(process.readLine(line, deadline), WorkerProcess::ReadStatus::Line);
        QCOMPARE(line, std::string("one"));
        QCOMPARE(process.readLine(line, deadline), WorkerProcess::ReadStatus::Line);
        QCOMPARE(line, std::string("three"));
        QCOMPARE(process.readLine(line, deadline), WorkerProcess::ReadStatus::Closed);
        const ProcessExit exit = process.waitForExit(deadline);
        QVERIFY(!exit.signaled);
        QCOMPARE(exit.code, 5);
        QCOMPARE(process.stderrTail(), std::string("two\n"));
    }

    void workerProcessWriteToDeadChildFails()
    {
        WorkerProcess process;
        QVERIFY(process.start({"/bin/true"}).isOk());
        process.waitForExit(WorkerProcess::Clock::now() + kPatience);
        // Without the SIGPIPE guard this would kill the test process.
        const Status written = process.write(std::string(1 << 20, 'x'), WorkerProcess::Clock::now() + kPatience);
        QVERIFY(!written.isOk());
    }

    void realWorkerReportsMissingGpu()
    {
        WorkerProcess process;
        QVERIFY(process.start({KX_BINARY_DIR "/kx", "worker", "--device", "0"}).isOk());
        std::string line;
        QCOMPARE(process.readLine(line, WorkerProcess::Clock::now() + kPatience), WorkerProcess::ReadStatus::Line);
        const auto message = parseWorkerMessage(line);
        QVERIFY2(message.hasValue(), message.hasValue() ? "" : message.error().message.c_str());
        const auto *hello = std::get_if<HelloMessage>(&*message);
        QVERIFY(hello);
        QCOMPARE(hello->protocolVersion, kProtocolVersion);
        QCOMPARE(hello->pid, std::int64_t(process.pid()));
        if (hello->error.empty()) {
            process.closeStdin();
            process.waitForExit(WorkerProcess::Clock::now() + kPatience);
            QSKIP("this machine has a usable GPU, so kx worker does not report a missing one");
        }
        QVERIFY2(hello->error.find("no usable GPU on device 0") != std::string::npos, hello->error.c_str());
        QVERIFY(hello->gpu.name.empty());
        const ProcessExit exit = process.waitForExit(WorkerProcess::Clock::now() + kPatience);
        QVERIFY(!exit.signaled);
        QCOMPARE(exit.code, 4); // kx::cli::NoGpu
        QVERIFY2(process.stderrTail().find("no usable GPU") != std::string::npos, process.stderrTail().c_str());

        // Through the pool: start() fails with the worker's reason.
        WorkerPoolOptions options;
        options.command = {KX_BINARY_DIR "/kx", "worker"};
        WorkerPool pool(options);
        const Status started = pool.start();
        QVERIFY(!started.isOk());
        QVERIFY2(started.error().message.find(hello->error) != std::string::npos, started.error().message.c_str());
    }

    void serviceRejectsBrokenKernelsWithoutAWorker()
    {
        if (!NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        CountingObserver observer;
        EvaluationService service(std::make_unique<WorkerPool>(fakeOptions()), {}, &observer);
        const Status started = service.start();
        QVERIFY2(started.isOk(), started.isOk() ? "" : started.error().message.c_str());
        QCOMPARE(service.targetArch(), std::string("sm_90"));

        const std::string broken = "extern \"C\" __global__ void relu_kernel(const float* x, float* out, int n)\n"
                                   "{\n    out[0] = x[0] +;\n}\n";
        const auto compileError = await(service.submit(reluOp(), candidate(broken, reluPlan(256), "ok"), {}));
        VERIFY_EVALUATION(compileError);
        COMPARE_STATUS(compileError->status, EvalStatus::CompileError);
        QVERIFY(!compileError->message.empty());
        QVERIFY(!compileError->compile.log.empty());
        QCOMPARE(compileError->gpu.name, std::string("Fake GPU 0"));

        // 2048 threads per block is over every GPU's limit.
        const auto planError = await(service.submit(reluOp(), candidate(kReluSource, reluPlan(2048), "ok"), {}));
        VERIFY_EVALUATION(planError);
        COMPARE_STATUS(planError->status, EvalStatus::PlanError);
        QVERIFY2(planError->message.find("launch plan") != std::string::npos, planError->message.c_str());
        QVERIFY(planError->compile.registers > 0);

        const auto unparsable = await(service.submit(reluOp(), candidate(kReluSource, "{not json", "ok"), {}));
        VERIFY_EVALUATION(unparsable);
        COMPARE_STATUS(unparsable->status, EvalStatus::PlanError);

        QCOMPARE(requestsSent(service.pool()), std::int64_t(0));
        QCOMPARE(observer.compiledCount.load(), 3);
        QCOMPARE(observer.compileFailures.load(), 1);
        QCOMPARE(observer.evaluatedCount.load(), 3);
    }

    void serviceSendsCompiledKernelsToWorkers()
    {
        if (!NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        CountingObserver observer;
        EvaluationService service(std::make_unique<WorkerPool>(fakeOptions()), {}, &observer);
        QVERIFY(service.start().isOk());
        EvalSettings settings;
        settings.trials = 6;
        const auto result = await(service.submit(reluOp(), candidate(kReluSource, reluPlan(256), "ok"), settings));
        VERIFY_EVALUATION(result);
        COMPARE_STATUS(result->status, EvalStatus::Correct);
        // The fake worker saw a real cubin for the worker's arch, and the settings.
        QVERIFY2(result->message.find("(ELF) for sm_90") != std::string::npos, result->message.c_str());
        QCOMPARE(result->correctness.trials, 6);
        QVERIFY(result->compile.registers > 0);
        QCOMPARE(requestsSent(service.pool()), std::int64_t(1));
        QCOMPARE(observer.evaluatedCount.load(), 1);

        // A worker crash still ends in exactly one evaluation.
        const auto crashed = await(service.submit(reluOp(), candidate(kReluSource, reluPlan(128), "crash"), settings));
        VERIFY_EVALUATION(crashed);
        COMPARE_STATUS(crashed->status, EvalStatus::Crashed);
    }

    void serviceCancelsAndStops()
    {
        if (!NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        EvaluationService service(std::make_unique<WorkerPool>(fakeOptions()));
        // Before start() nothing is compiled: these wait, and cancelPending() drops every one of them.
        std::vector<std::future<Expected<Evaluation>>> futures;
        for (int block : {32, 64, 128, 256, 512})
            futures.push_back(service.submit(reluOp(), candidate(kReluSource, reluPlan(block), "ok"), {}));
        QCOMPARE(service.cancelPending(), std::size_t(5));
        for (auto &future : futures) {
            const auto result = await(std::move(future));
            QVERIFY(!result.hasValue());
            QVERIFY2(result.error().message.find("cancelled") != std::string::npos, result.error().message.c_str());
        }

        QVERIFY(service.start().isOk());
        EvalSettings settings;
        settings.timeoutMs = 600000;
        auto hung = service.submit(reluOp(), candidate(kReluSource, reluPlan(256), "hang"), settings);
        QTRY_COMPARE_WITH_TIMEOUT(requestsSent(service.pool()), std::int64_t(1), 60000);
        service.stop();
        const auto hungResult = await(std::move(hung));
        QVERIFY(!hungResult.hasValue());
        QVERIFY2(hungResult.error().message.find("cancelled") != std::string::npos,
                 hungResult.error().message.c_str());
        const auto late = await(service.submit(reluOp(), candidate(kReluSource, reluPlan(64), "ok"), {}));
        QVERIFY(!late.hasValue());
        QVERIFY(late.error().message.find("stopped") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(tst_WorkerPool)
#include "tst_workerpool.moc"
