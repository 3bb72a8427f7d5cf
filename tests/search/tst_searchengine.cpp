// The search engine against test doubles: lineage, determinism, pause/resume/cancel, continuing after SIGKILL.
#include "fakesearch.h"

#include "core/archive/archive.h"
#include "core/search/population.h"
#include "core/search/searchengine.h"

#include <QProcess>
#include <QTemporaryDir>
#include "qtestprinters.h"

#include <QTest>

#include <csignal>
#include <mutex>

using namespace kx;

namespace {

struct EventLog
{
    std::mutex mutex;
    std::vector<SearchEvent> events;
    SearchEventSink sink()
    {
        return [this](const SearchEvent &event) {
            std::lock_guard lock(mutex);
            events.push_back(event);
        };
    }
    int count(SearchEvent::Kind kind)
    {
        std::lock_guard lock(mutex);
        return int(std::count_if(events.begin(), events.end(), [kind](const auto &e) { return e.kind == kind; }));
    }
};

std::vector<std::unique_ptr<StopCondition>> generations(int count)
{
    std::vector<std::unique_ptr<StopCondition>> stops;
    stops.push_back(makeGenerationLimit(count));
    return stops;
}

SearchSettings settingsWithSeed(std::uint64_t seed)
{
    SearchSettings settings;
    settings.seed = seed;
    settings.childrenPerGeneration = 4;
    settings.budget.generations = 0; // each test names its own stop condition
    return settings;
}

std::unique_ptr<Archive> openArchive(const QString &path)
{
    auto archive = Archive::open(path.toStdString());
    if (!archive)
        qFatal("%s", archive.error().message.c_str());
    return std::move(*archive);
}

std::vector<std::string> lineageIds(const QString &path, std::int64_t runId)
{
    std::vector<std::string> ids;
    for (const auto &candidate : openArchive(path)->candidatesOfRun(runId))
        ids.push_back(candidate.id);
    return ids;
}

std::vector<std::string> runSearch(const QString &path, std::uint64_t seed, int generationCount)
{
    SearchEngine engine(path.toStdString(), std::make_unique<test::FakeProposer>(),
                        std::make_shared<test::FakeEvaluator>(), settingsWithSeed(seed), generations(generationCount));
    const auto run = engine.start(test::fakeOp());
    if (!run)
        qFatal("%s", run.error().message.c_str());
    engine.wait();
    return lineageIds(path, *run);
}

QStringList runnerArguments(const QString &archive, const QString &runToContinue = {})
{
    QStringList arguments{archive, "7", "6"};
    if (!runToContinue.isEmpty())
        arguments << runToContinue;
    return arguments;
}

} // namespace

class TestSearchEngine : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void evolvesAndRecordsLineage()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("a.kxdb");
        EventLog log;
        SearchEngine engine(path.toStdString(), std::make_unique<test::FakeProposer>(),
                            std::make_shared<test::FakeEvaluator>(), settingsWithSeed(3), generations(5), log.sink());
        const auto runId = engine.start(test::fakeOp());
        QVERIFY(runId);
        engine.wait();
        QCOMPARE(engine.state(), RunState::Finished);

        auto archive = openArchive(path);
        QCOMPARE(archive->run(*runId)->state, RunState::Finished);
        const auto lineage = archive->candidatesOfRun(*runId);
        QVERIFY(lineage.size() > 10);
        QCOMPARE(log.count(SearchEvent::Kind::Proposed), int(lineage.size()));
        QCOMPARE(log.count(SearchEvent::Kind::Evaluated), int(lineage.size()));
        QCOMPARE(log.count(SearchEvent::Kind::GenerationFinished), 6); // translation + 5 generations
        QCOMPARE(log.count(SearchEvent::Kind::Finished), 1);
        QVERIFY(lineage.front().parentIds.empty());
        QCOMPARE(lineage.front().origin, Origin::Translated);

        std::map<std::string, Evaluation> results;
        for (const auto &candidate : lineage) {
            const auto evaluations = archive->evaluations(candidate.id);
            QCOMPARE(evaluations.size(), std::size_t(1));
            QCOMPARE(evaluations.front().runId, *runId);
            results[candidate.id] = evaluations.front();
        }
        // Every child records its parents; only correct kernels are bred from (repair exists to fix failures).
        for (const auto &candidate : lineage) {
            if (candidate.parentIds.empty())
                continue;
            QVERIFY(!candidate.description.empty());
            QVERIFY(candidate.origin == Origin::Mutated || candidate.origin == Origin::Crossover);
            if (candidate.operatorName == "repair")
                continue;
            for (const auto &parent : candidate.parentIds)
                QCOMPARE(results.at(parent).status, EvalStatus::Correct);
        }
        QVERIFY(std::any_of(lineage.begin(), lineage.end(), [](auto &c) { return c.origin == Origin::Crossover; }));
        QVERIFY(std::any_of(results.begin(), results.end(), [](auto &r) { return r.second.status != EvalStatus::Correct; }));

        // New-best events improve monotonically and end at the run's best.
        double previous = 0;
        std::string lastBest;
        for (const auto &event : log.events) {
            if (event.kind != SearchEvent::Kind::NewBest)
                continue;
            QVERIFY(event.evaluation->speedup > previous);
            previous = event.evaluation->speedup;
            lastBest = event.candidate->id;
        }
        QVERIFY(previous > results.at(lineage.front().id).speedup);
        QCOMPARE(engine.progress().bestCandidateId, lastBest);
    }

    void isDeterministicForASeed()
    {
        QTemporaryDir dir;
        const auto first = runSearch(dir.filePath("a.kxdb"), 11, 4);
        const auto second = runSearch(dir.filePath("b.kxdb"), 11, 4);
        const auto other = runSearch(dir.filePath("c.kxdb"), 12, 4);
        QCOMPARE(first, second);
        QVERIFY(first != other);
    }

    void pausesAndResumes()
    {
        QTemporaryDir dir;
        auto evaluator = std::make_shared<test::FakeEvaluator>();
        evaluator->hold();
        EventLog log;
        SearchEngine engine(dir.filePath("a.kxdb").toStdString(), std::make_unique<test::FakeProposer>(), evaluator,
                            settingsWithSeed(5), generations(3), log.sink());
        QVERIFY(engine.start(test::fakeOp()));
        QTRY_VERIFY(engine.progress().proposed >= 1);
        engine.pause();
        evaluator->release();
        QTRY_COMPARE(engine.state(), RunState::Paused);
        const int proposed = engine.progress().proposed;
        const int evaluated = engine.progress().evaluated;
        QTest::qWait(300);
        QCOMPARE(engine.progress().proposed, proposed); // nothing new while paused
        QCOMPARE(engine.progress().evaluated, evaluated);
        QCOMPARE(openArchive(dir.filePath("a.kxdb"))->run(engine.runId())->state, RunState::Paused);
        engine.resume();
        engine.wait();
        QCOMPARE(engine.state(), RunState::Finished);
        QVERIFY(engine.progress().proposed > proposed);
    }

    void cancelsWithEvaluationsInFlight()
    {
        QTemporaryDir dir;
        auto evaluator = std::make_shared<test::FakeEvaluator>();
        evaluator->hold();
        EventLog log;
        SearchEngine engine(dir.filePath("a.kxdb").toStdString(), std::make_unique<test::FakeProposer>(), evaluator,
                            settingsWithSeed(5), generations(50), log.sink());
        const auto runId = engine.start(test::fakeOp());
        QVERIFY(runId);
        QTRY_VERIFY(engine.progress().proposed >= 1);
        engine.cancel();
        engine.wait(); // returns although the evaluation is still held
        QCOMPARE(engine.state(), RunState::Cancelled);
        QCOMPARE(openArchive(dir.filePath("a.kxdb"))->run(*runId)->state, RunState::Cancelled);
        QCOMPARE(log.count(SearchEvent::Kind::Finished), 1);
        evaluator->release();
    }

    void continuesAfterSigkill()
    {
        QTemporaryDir dir;
        const QString reference = dir.filePath("reference.kxdb");
        QProcess full;
        full.start(KX_SEARCH_RUNNER, runnerArguments(reference));
        QVERIFY(full.waitForFinished(60000));
        QCOMPARE(full.exitCode(), 0);
        const auto expected = lineageIds(reference, 1);
        QVERIFY(expected.size() > 12);

        const QString killed = dir.filePath("killed.kxdb");
        QProcess victim;
        victim.start(KX_SEARCH_RUNNER, runnerArguments(killed));
        QVERIFY(victim.waitForStarted());
        QByteArray output;
        while (!output.contains("evaluated 9\n") && victim.waitForReadyRead(30000))
            output += victim.readAllStandardOutput();
        QVERIFY2(output.contains("evaluated 9\n"), output.constData());
        ::kill(pid_t(victim.processId()), SIGKILL);
        QVERIFY(victim.waitForFinished(5000));
        QCOMPARE(openArchive(killed)->run(1)->state, RunState::Running); // killed: never marked finished

        QProcess continued;
        continued.start(KX_SEARCH_RUNNER, runnerArguments(killed, "1"));
        QVERIFY(continued.waitForFinished(60000));
        QCOMPARE(continued.exitCode(), 0);
        QCOMPARE(lineageIds(killed, 1), expected);
        auto archive = openArchive(killed);
        QCOMPARE(archive->run(1)->state, RunState::Finished);
        for (const auto &id : expected)
            QCOMPARE(archive->evaluations(id).size(), std::size_t(1)); // nothing lost, nothing evaluated twice
    }

    void laterRunsGetSteppingStones()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("a.kxdb");
        runSearch(path, 1, 3);
        auto proposer = std::make_unique<test::FakeProposer>();
        auto *observed = proposer.get();
        SearchEngine engine(path.toStdString(), std::move(proposer), std::make_shared<test::FakeEvaluator>(),
                            settingsWithSeed(2), generations(2));
        QVERIFY(engine.start(test::fakeOp()));
        engine.wait();
        QVERIFY(observed->requestsWithStones > 0);
        QCOMPARE(openArchive(path)->runs().size(), std::size_t(2));
    }

    void refusesUnknownRun()
    {
        QTemporaryDir dir;
        SearchEngine engine(dir.filePath("a.kxdb").toStdString(), std::make_unique<test::FakeProposer>(),
                            std::make_shared<test::FakeEvaluator>(), settingsWithSeed(1), generations(1));
        const auto run = engine.continueRun(42);
        QVERIFY(!run);
        QVERIFY(run.error().message.find("no run") != std::string::npos);
    }

    void stopConditions_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("limit");
        QTest::addColumn<int>("below");
        QTest::addColumn<int>("at");
        QTest::newRow("generations") << 0 << 3 << 2 << 3;
        QTest::newRow("candidates") << 1 << 10 << 9 << 10;
        QTest::newRow("time") << 2 << 5 << 4 << 5;
        QTest::newRow("no improvement") << 3 << 2 << 1 << 2;
    }

    void stopConditions()
    {
        QFETCH(int, kind);
        QFETCH(int, limit);
        QFETCH(int, below);
        QFETCH(int, at);
        const auto make = [&](int value) {
            SearchProgress progress;
            progress.generation = progress.evaluated = progress.generationsWithoutImprovement = value;
            progress.elapsedSeconds = value;
            return progress;
        };
        std::unique_ptr<StopCondition> condition;
        switch (kind) {
        case 0: condition = makeGenerationLimit(limit); break;
        case 1: condition = makeCandidateLimit(limit); break;
        case 2: condition = makeTimeLimit(limit); break;
        default: condition = makeNoImprovementLimit(limit); break;
        }
        QVERIFY(!condition->reached(make(below)));
        QVERIFY(condition->reached(make(at)));
        QVERIFY(!condition->describe().empty());
    }

    void settingsRoundTrip()
    {
        SearchSettings settings = settingsWithSeed(99);
        settings.similarOps = {"gelu"};
        settings.eval.trials = 7;
        settings.budget = {12, 300, 60.0, 4};
        const auto back = searchSettingsFromJson(toJson(settings));
        QVERIFY(back);
        QCOMPARE(back->seed, std::uint64_t(99));
        QCOMPARE(back->similarOps, settings.similarOps);
        QVERIFY(back->eval == settings.eval);
        QVERIFY(back->budget == settings.budget);
        QCOMPARE(makeStopConditions(settings.budget).size(), std::size_t(4));
        QVERIFY(!searchSettingsFromJson("{nope"));
    }
};

QTEST_GUILESS_MAIN(TestSearchEngine)
#include "tst_searchengine.moc"
