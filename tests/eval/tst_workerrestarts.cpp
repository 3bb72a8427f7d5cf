// A worker that hangs, crashes, breaks the protocol, is killed from outside or says it must exit: what the request
// gets, and that the pool restarts the worker (or keeps it, when nothing was wrong with it).
#include "workerpooltestsupport.h"

#include "core/eval/workerpool.h"

#include "waituntil.h"

#include <doctest/doctest.h>

#include <csignal>
#include <thread>

using namespace kx;
using namespace kx::test;

TEST_CASE("a hang times out and the worker restarts")
{
    WorkerPool pool(fakeOptions());
    REQUIRE(pool.start().isOk());
    const auto first = await(pool.submit(request("ok")));
    REQUIRE_EVALUATION(first);

    const auto hung = await(pool.submit(request("hang", 300)));
    REQUIRE_EVALUATION(hung);
    CHECK(hung->status == EvalStatus::Timeout);
    CHECK(hung->candidateId == std::string("candidate-hang"));
    CHECK_MESSAGE(hung->message.find("no result within 300 ms") != std::string::npos, hung->message);
    CHECK_MESSAGE(hung->message.find("waited") != std::string::npos, hung->message);

    const auto next = await(pool.submit(request("ok")));
    REQUIRE_EVALUATION(next);
    CHECK(next->status == EvalStatus::Correct);
    CHECK(workerPid(*next) != workerPid(*first));
    CHECK(pool.workers()[0].restarts == 1);
}

// A worker measuring a baseline (an Inductor build can take minutes) says so; its request's deadline moves.
TEST_CASE("a busy worker gets more time")
{
    WorkerPool pool(fakeOptions());
    REQUIRE(pool.start().isOk());
    const auto patient = await(pool.submit(request("busy:5000:900", 300)));
    REQUIRE_EVALUATION(patient);
    CHECK(patient->status == EvalStatus::Correct);
    CHECK(pool.workers()[0].restarts == 0);

    // The extra time counts from the busy message: asking for none leaves the request's own timeout.
    const auto impatient = await(pool.submit(request("busy:0:900", 300)));
    REQUIRE_EVALUATION(impatient);
    CHECK(impatient->status == EvalStatus::Timeout);
}

TEST_CASE("a crash reports the end of stderr and the signal")
{
    WorkerPool pool(fakeOptions());
    REQUIRE(pool.start().isOk());
    const auto crashed = await(pool.submit(request("crash")));
    REQUIRE_EVALUATION(crashed);
    CHECK(crashed->status == EvalStatus::Crashed);
    CHECK_MESSAGE(crashed->message.find("crashing on purpose in candidate candidate-crash") != std::string::npos,
                  crashed->message);
    CHECK_MESSAGE(crashed->message.find("signal 6 (SIGABRT)") != std::string::npos, crashed->message);

    const auto next = await(pool.submit(request("ok")));
    REQUIRE_EVALUATION(next);
    CHECK(next->status == EvalStatus::Correct);
    CHECK(pool.workers()[0].restarts == 1);
}

// A worker killed from outside (an OOM killer, a scheduler's preemption) is not the candidate's doing: the
// request runs again on the restarted worker. A second such death mid-evaluation is reported as a crash.
TEST_CASE("a worker killed from outside runs its request again, once")
{
    WorkerPool pool(fakeOptions());
    REQUIRE(pool.start().isOk());
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
    REQUIRE(firstPid > 0);
    const auto again = await(std::move(once));
    REQUIRE_EVALUATION(again);
    CHECK(again->status == EvalStatus::Correct);
    CHECK(workerPid(*again) != firstPid);
    CHECK(pool.workers()[0].restarts == 1);
    CHECK_MESSAGE(pool.workers()[0].lastError.find("SIGKILL") != std::string::npos, pool.workers()[0].lastError);

    auto twice = pool.submit(request("sleep:3000"));
    const auto secondPid = killBusyWorker(0);
    REQUIRE(secondPid > 0);
    REQUIRE(killBusyWorker(secondPid) > 0);
    const auto crashed = await(std::move(twice));
    REQUIRE_EVALUATION(crashed);
    CHECK(crashed->status == EvalStatus::Crashed);
    CHECK_MESSAGE(crashed->message.find("SIGKILL") != std::string::npos, crashed->message);
    CHECK_MESSAGE(waitUntil([&] { return pool.workers()[0].restarts == 3; }, 60s),
                  "restarts: " << pool.workers()[0].restarts);
}

TEST_CASE("the exit code is reported")
{
    WorkerPool pool(fakeOptions());
    REQUIRE(pool.start().isOk());
    const auto exited = await(pool.submit(request("exit:3")));
    REQUIRE_EVALUATION(exited);
    CHECK(exited->status == EvalStatus::Crashed);
    CHECK_MESSAGE(exited->message.find("exit code 3") != std::string::npos, exited->message);
    CHECK_MESSAGE(exited->message.find("exiting on purpose") != std::string::npos, exited->message);
}

TEST_CASE("garbage output is a crash")
{
    WorkerPool pool(fakeOptions());
    REQUIRE(pool.start().isOk());
    // The fake hangs after its garbage line: a Timeout here would mean the pool ignored the garbage.
    const auto garbled = await(pool.submit(request("garbage", 60000)));
    REQUIRE_EVALUATION(garbled);
    CHECK(garbled->status == EvalStatus::Crashed);
    CHECK_MESSAGE(garbled->message.find("this is not a protocol line") != std::string::npos, garbled->message);

    const auto next = await(pool.submit(request("ok")));
    REQUIRE_EVALUATION(next);
    CHECK(next->status == EvalStatus::Correct);
}

TEST_CASE("a worker that must exit is restarted")
{
    WorkerPool pool(fakeOptions());
    REQUIRE(pool.start().isOk());
    const auto first = await(pool.submit(request("ok")));
    REQUIRE_EVALUATION(first);
    const auto fault = await(pool.submit(request("must-exit")));
    REQUIRE_EVALUATION(fault);
    CHECK(fault->status == EvalStatus::Fault);
    CHECK(fault->message == std::string("fake: illegal address (sticky)"));

    const auto next = await(pool.submit(request("ok")));
    REQUIRE_EVALUATION(next);
    CHECK(next->status == EvalStatus::Correct);
    CHECK(workerPid(*next) != workerPid(*first));
    CHECK(pool.workers()[0].restarts == 1);
}

TEST_CASE("an exception in the evaluator keeps the worker")
{
    WorkerPool pool(fakeOptions());
    REQUIRE(pool.start().isOk());
    const auto thrown = await(pool.submit(request("throw")));
    REQUIRE_EVALUATION(thrown);
    CHECK(thrown->status == EvalStatus::Crashed);
    CHECK_MESSAGE(thrown->message.find("fake evaluator refused the candidate") != std::string::npos, thrown->message);
    const auto next = await(pool.submit(request("ok")));
    REQUIRE_EVALUATION(next);
    CHECK(next->status == EvalStatus::Correct);
    CHECK(pool.workers()[0].restarts == 0);
}

TEST_CASE("a chatty stderr and long results keep the worker")
{
    WorkerPool pool(fakeOptions());
    REQUIRE(pool.start().isOk());
    const auto flooded = await(pool.submit(request("stderr-flood")));
    REQUIRE_EVALUATION(flooded);
    CHECK(flooded->status == EvalStatus::Correct);

    const auto big = await(pool.submit(request("samples:200000")));
    REQUIRE_EVALUATION(big);
    CHECK(big->status == EvalStatus::Correct);
    CHECK(big->samplesMs.size() == std::size_t(200000));
    CHECK(pool.workers()[0].restarts == 0);
}
