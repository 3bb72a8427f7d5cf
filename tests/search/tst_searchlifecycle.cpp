// A search run's life against test doubles: pausing, resuming and cancelling it, continuing it after SIGKILL, and
// refusing or failing runs that cannot go on.
#include "enginetestsupport.h"
#include "fakesearch.h"

#include "core/archive/archive.h"
#include "core/search/searchengine.h"
#include "core/search/templateproposer.h"

#include "childprocess.h"
#include "temporarydir.h"
#include "waituntil.h"

#include <doctest/doctest.h>

#include <csignal>
#include <mutex>
#include <thread>

using namespace kx;
using namespace kx::test;

namespace {

std::vector<std::string> runnerArguments(const std::string &archive, const std::string &runToContinue = {})
{
    std::vector<std::string> arguments{KX_SEARCH_RUNNER, archive, "7", "6"};
    if (!runToContinue.empty())
        arguments.push_back(runToContinue);
    return arguments;
}

// Fails every call, as a proposer with a wrong API key or a broken command does; or every other call.
class FailingProposer : public test::FakeProposer
{
public:
    explicit FailingProposer(bool everyOther)
        : m_everyOther(everyOther)
    {}
    ProposalResult propose(const ProposalRequest &request, std::stop_token stop) override
    {
        if (m_everyOther && m_calls++ % 2 == 1)
            return test::FakeProposer::propose(request, stop);
        return {{}, "HTTP 401: invalid API key (call " + std::to_string(++m_failures) + ")"};
    }

private:
    bool m_everyOther;
    int m_calls = 0;
    int m_failures = 0;
};

} // namespace

TEST_CASE("a search in which nothing could be proposed fails with the proposer's last errors")
{
    TemporaryDir dir;
    EventLog log;
    SearchEngine engine(dir.filePath("a.kxdb"), std::make_unique<FailingProposer>(false),
                        std::make_shared<test::FakeEvaluator>(), settingsWithSeed(3), generations(4), log.sink());
    const auto runId = engine.start(test::fakeOp());
    REQUIRE(runId);
    engine.wait();
    CHECK(engine.state() == RunState::Failed);
    CHECK(openArchive(dir.filePath("a.kxdb"))->run(*runId)->state == RunState::Failed);
    std::string finished;
    {
        std::lock_guard lock(log.mutex);
        for (const SearchEvent &event : log.events)
            if (event.kind == SearchEvent::Kind::Finished)
                finished = event.message;
    }
    CHECK_MESSAGE(finished.find("nothing could be proposed") != std::string::npos, finished);
    CHECK_MESSAGE(finished.find("translate: HTTP 401: invalid API key") != std::string::npos, finished);

    // A proposer that fails only now and then still finishes its search.
    TemporaryDir other;
    SearchEngine partly(other.filePath("a.kxdb"), std::make_unique<FailingProposer>(true),
                        std::make_shared<test::FakeEvaluator>(), settingsWithSeed(3), generations(2));
    REQUIRE(partly.start(test::fakeOp()));
    partly.wait();
    CHECK(partly.state() == RunState::Finished);
}

TEST_CASE("pauses and resumes")
{
    TemporaryDir dir;
    auto evaluator = std::make_shared<test::FakeEvaluator>();
    evaluator->hold();
    EventLog log;
    SearchEngine engine(dir.filePath("a.kxdb"), std::make_unique<test::FakeProposer>(), evaluator, settingsWithSeed(5),
                        generations(3), log.sink());
    REQUIRE(engine.start(test::fakeOp()));
    CHECK(waitUntil([&] { return engine.progress().proposed >= 1; }));
    engine.pause();
    evaluator->release();
    CHECK(waitUntil([&] { return engine.state() == RunState::Paused; }));
    CHECK(engine.state() == RunState::Paused);
    const int proposed = engine.progress().proposed;
    const int evaluated = engine.progress().evaluated;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    CHECK(engine.progress().proposed == proposed); // nothing new while paused
    CHECK(engine.progress().evaluated == evaluated);
    CHECK(openArchive(dir.filePath("a.kxdb"))->run(engine.runId())->state == RunState::Paused);
    engine.resume();
    engine.wait();
    CHECK(engine.state() == RunState::Finished);
    CHECK(engine.progress().proposed > proposed);
}

TEST_CASE("cancels with evaluations in flight")
{
    TemporaryDir dir;
    auto evaluator = std::make_shared<test::FakeEvaluator>();
    evaluator->hold();
    EventLog log;
    SearchEngine engine(dir.filePath("a.kxdb"), std::make_unique<test::FakeProposer>(), evaluator, settingsWithSeed(5),
                        generations(50), log.sink());
    const auto runId = engine.start(test::fakeOp());
    REQUIRE(runId);
    CHECK(waitUntil([&] { return engine.progress().proposed >= 1; }));
    engine.cancel();
    engine.wait(); // returns although the evaluation is still held
    CHECK(engine.state() == RunState::Cancelled);
    CHECK(openArchive(dir.filePath("a.kxdb"))->run(*runId)->state == RunState::Cancelled);
    CHECK(log.count(SearchEvent::Kind::Finished) == 1);
    evaluator->release();
}

TEST_CASE("continues after SIGKILL")
{
    TemporaryDir dir;
    const std::string reference = dir.filePath("reference.kxdb");
    const auto full = test::runProgram(runnerArguments(reference), {}, std::chrono::seconds(60));
    CHECK_FALSE(full.timedOut);
    REQUIRE_MESSAGE(full.exitCode == 0, full.err);
    const auto expected = lineageIds(reference, 1);
    CHECK(expected.size() > 12);

    const std::string killed = dir.filePath("killed.kxdb");
    test::ChildProcess victim;
    REQUIRE(victim.start(runnerArguments(killed), {{"KX_RUNNER_HOLD_AFTER", "9"}}));
    const bool reached = victim.waitForOutput("evaluated 9\n", std::chrono::seconds(60));
    REQUIRE_MESSAGE(reached, victim.out());
    victim.sendSignal(SIGKILL);
    const auto ended = victim.finish(std::chrono::seconds(5));
    CHECK_FALSE(ended.timedOut);
    CHECK(openArchive(killed)->run(1)->state == RunState::Running); // killed: never marked finished

    const auto continued = test::runProgram(runnerArguments(killed, "1"), {}, std::chrono::seconds(60));
    CHECK_FALSE(continued.timedOut);
    CHECK_MESSAGE(continued.exitCode == 0, continued.err);
    CHECK(lineageIds(killed, 1) == expected);
    auto archive = openArchive(killed);
    CHECK(archive->run(1)->state == RunState::Finished);
    for (const auto &id : expected)
        CHECK(archive->evaluations(id).size() == std::size_t(1)); // nothing lost, nothing evaluated twice
}

TEST_CASE("a continued run counts generations without improvement as the live run did")
{
    TemporaryDir dir;
    const std::string path = dir.filePath("a.kxdb");
    SearchProgress live;
    std::int64_t runId = 0;
    {
        // Long enough for the best to stall (the fake speedup peaks at one value).
        SearchEngine engine(path, std::make_unique<test::FakeProposer>(), std::make_shared<test::FakeEvaluator>(),
                            settingsWithSeed(3), generations(20));
        const auto run = engine.start(test::fakeOp());
        REQUIRE(run);
        runId = *run;
        engine.wait();
        live = engine.progress();
    }
    CHECK(live.generationsWithoutImprovement > 0);
    // Continued under the same limit, the run is already done: the progress is what the archive restores.
    SearchEngine again(path, std::make_unique<test::FakeProposer>(), std::make_shared<test::FakeEvaluator>(),
                       settingsWithSeed(3), generations(20));
    REQUIRE(again.continueRun(runId));
    again.wait();
    const auto restored = again.progress();
    CHECK(restored.generation == live.generation);
    CHECK(restored.bestSpeedup == doctest::Approx(live.bestSpeedup));
    CHECK(restored.generationsWithoutImprovement == live.generationsWithoutImprovement);
}

TEST_CASE("later runs get stepping stones")
{
    TemporaryDir dir;
    const std::string path = dir.filePath("a.kxdb");
    runSearch(path, 1, 3);
    auto proposer = std::make_unique<test::FakeProposer>();
    auto *observed = proposer.get();
    SearchEngine engine(path, std::move(proposer), std::make_shared<test::FakeEvaluator>(), settingsWithSeed(2),
                        generations(2));
    REQUIRE(engine.start(test::fakeOp()));
    engine.wait();
    CHECK(observed->requestsWithStones > 0);
    CHECK(openArchive(path)->runs().size() == std::size_t(2));
}

TEST_CASE("refuses an unknown run")
{
    TemporaryDir dir;
    SearchEngine engine(dir.filePath("a.kxdb"), std::make_unique<test::FakeProposer>(),
                        std::make_shared<test::FakeEvaluator>(), settingsWithSeed(1), generations(1));
    const auto run = engine.continueRun(42);
    REQUIRE(!run);
    CHECK(run.error().message.find("no run") != std::string::npos);
}

TEST_CASE("a search the proposer cannot make a kernel for is refused before it starts")
{
    TemporaryDir dir;
    const auto path = dir.filePath("a.kxdb");
    Op opaque = test::fakeOp();
    opaque.name = "kb/opaque";
    opaque.recipe.clear(); // an imported problem the templates do not understand
    SearchEngine engine(path, std::make_unique<TemplateProposer>(), std::make_shared<test::FakeEvaluator>(),
                        settingsWithSeed(1), generations(3));
    const auto run = engine.start(opaque);
    REQUIRE(!run);
    CHECK(run.error().message.find("the template proposer cannot make kernels for kb/opaque") != std::string::npos);
    CHECK(run.error().message.find("has no recipe") != std::string::npos);
    CHECK(run.error().message.find("--proposer") != std::string::npos);
    CHECK(openArchive(path)->runs().empty()); // no failed run left behind

    // The same op searched with a proposer that can try (the fake one) starts.
    SearchEngine other(path, std::make_unique<test::FakeProposer>(), std::make_shared<test::FakeEvaluator>(),
                       settingsWithSeed(1), generations(1));
    REQUIRE(other.start(opaque));
    other.wait();
}
