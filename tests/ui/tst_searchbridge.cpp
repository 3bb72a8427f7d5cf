// The search bridge with real searches: NVRTC compiles, worker processes (the fake worker stands in for a GPU),
// SQLite. Events must reach the GUI thread as signals; pause, resume and stop must work; no GPU must be reported.
#include "qtestprinters.h"

#include "ui/common/archivereader.h"
#include "ui/search/searchbridge.h"
#include "ui/window/mainwindow.h"

#include "core/archive/archive.h"
#include "core/ops/builtinops.h"
#include "core/plan/nvrtccompiler.h"

#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QThreadPool>

using namespace kx;
using namespace kx::ui;

namespace {

constexpr int kSearchTimeoutMs = 120000;

RunState storedRunState(const QString &archivePath, std::int64_t runId)
{
    auto archive = Archive::open(QFile::encodeName(archivePath).toStdString(), ArchiveMode::ReadOnly);
    if (!archive)
        return RunState::Created;
    const auto run = (*archive)->run(runId);
    return run ? run->state : RunState::Created;
}

SearchSettings smallSearch(int generations, int children)
{
    SearchSettings settings;
    settings.seed = 3;
    settings.childrenPerGeneration = children;
    settings.budget.generations = generations;
    settings.eval.trials = 1;
    settings.eval.timedRuns = 10;
    return settings;
}

} // namespace

class TestSearchBridge : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void estimatesRemainingTime_data();
    void estimatesRemainingTime();
    void searchesACatalogOp();
    void pausesResumesAndStops();
    void continuesAStoppedRun();
    void reportsNoGpu();
    void stopsWhileStarting();
    void refusesWithoutArchive();
    void refusesAnArchiveOpenedReadOnly();

private:
    void requireNvrtc();
    QString newArchive(const QString &name) { return m_dir.filePath(name); }

    QTemporaryDir m_dir;
    std::int64_t m_stoppedRun = 0;
    QString m_stoppedArchive;
};

void TestSearchBridge::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    qRegisterMetaType<kx::RunState>();
}

void TestSearchBridge::requireNvrtc()
{
    if (!NvrtcCompiler::available())
        QSKIP("this build has no NVRTC; searches need it");
}

void TestSearchBridge::estimatesRemainingTime_data()
{
    QTest::addColumn<int>("generations");
    QTest::addColumn<int>("candidates");
    QTest::addColumn<double>("seconds");
    QTest::addColumn<int>("generation");
    QTest::addColumn<int>("evaluated");
    QTest::addColumn<double>("elapsed");
    QTest::addColumn<double>("expected"); // < 0: no estimate

    QTest::newRow("nothing yet") << 5 << 0 << 0.0 << 0 << 0 << 0.0 << -1.0;
    QTest::newRow("translation only") << 5 << 0 << 0.0 << 0 << 1 << 2.0 << -1.0;
    // Working on generation 2 of 1..4 after 20 s: 2 of 5 done (translation + 1), 10 s each, 3 left.
    QTest::newRow("generations") << 4 << 0 << 0.0 << 2 << 10 << 20.0 << 30.0;
    QTest::newRow("candidates") << 0 << 100 << 0.0 << 3 << 25 << 50.0 << 150.0;
    QTest::newRow("time") << 0 << 0 << 600.0 << 1 << 5 << 100.0 << 500.0;
    QTest::newRow("nearest limit wins") << 4 << 0 << 25.0 << 2 << 10 << 20.0 << 5.0;
    QTest::newRow("over time") << 0 << 0 << 10.0 << 2 << 10 << 20.0 << 0.0;
}

void TestSearchBridge::estimatesRemainingTime()
{
    QFETCH(int, generations);
    QFETCH(int, candidates);
    QFETCH(double, seconds);
    QFETCH(int, generation);
    QFETCH(int, evaluated);
    QFETCH(double, elapsed);
    QFETCH(double, expected);
    SearchBudget budget;
    budget.generations = generations;
    budget.candidates = candidates;
    budget.seconds = seconds;
    SearchProgress progress;
    progress.generation = generation;
    progress.evaluated = evaluated;
    progress.elapsedSeconds = elapsed;
    const auto eta = SearchBridge::estimateRemainingSeconds(budget, progress);
    if (expected < 0) {
        QVERIFY(!eta);
    } else {
        QVERIFY(eta);
        QCOMPARE(*eta, expected);
    }
}

void TestSearchBridge::searchesACatalogOp()
{
    requireNvrtc();
    const QString path = newArchive(QStringLiteral("search.kxdb"));
    SearchBridge bridge;
    bridge.setArchive(archiveRef(path, ArchiveMode::ReadWrite));
    bridge.setWorkerCommand({QStringLiteral(KX_FAKE_WORKER)});

    QThread *gui = QThread::currentThread();
    int offThread = 0;
    QList<int> proposedCounts;
    QStringList proposedIds;
    QStringList evaluatedIds;
    QList<SearchBridge::State> states;
    connect(&bridge, &SearchBridge::progressChanged, this, [&](const SearchProgress &progress) {
        offThread += QThread::currentThread() != gui;
        proposedCounts << progress.proposed;
    });
    connect(&bridge, &SearchBridge::candidateProposed, this, [&](const Candidate &candidate, int) {
        offThread += QThread::currentThread() != gui;
        proposedIds << QString::fromStdString(candidate.id);
    });
    connect(&bridge, &SearchBridge::candidateEvaluated, this, [&](const Candidate &, const Evaluation &evaluation) {
        offThread += QThread::currentThread() != gui;
        evaluatedIds << QString::fromStdString(evaluation.candidateId);
    });
    connect(&bridge, &SearchBridge::stateChanged, this, [&](SearchBridge::State state) { states << state; });
    QSignalSpy started(&bridge, &SearchBridge::started);
    QSignalSpy finished(&bridge, &SearchBridge::finished);
    QSignalSpy failed(&bridge, &SearchBridge::startFailed);
    QSignalSpy workers(&bridge, &SearchBridge::workersChanged);

    const Op *op = findBuiltInOp("relu");
    QVERIFY(op);
    QVERIFY(bridge.start(*op, smallSearch(2, 3)));
    QCOMPARE(bridge.state(), SearchBridge::State::Starting);
    QVERIFY(!bridge.start(*op, smallSearch(2, 3))); // One search at a time.
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), kSearchTimeoutMs);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));

    QCOMPARE(started.size(), 1);
    const std::int64_t runId = started.first().first().toLongLong();
    QVERIFY(runId > 0);
    QCOMPARE(bridge.runId(), runId);
    QCOMPARE(finished.first().first().value<RunState>(), RunState::Finished);
    QCOMPARE(bridge.state(), SearchBridge::State::Idle);
    QCOMPARE(bridge.lastRunState(), RunState::Finished);
    QCOMPARE(states.first(), SearchBridge::State::Starting);
    QVERIFY(states.contains(SearchBridge::State::Running));
    QCOMPARE(states.last(), SearchBridge::State::Idle);
    QCOMPARE(offThread, 0);

    // Counts only grow, and every proposal was evaluated.
    QVERIFY(!proposedCounts.isEmpty());
    QVERIFY(std::is_sorted(proposedCounts.begin(), proposedCounts.end()));
    const SearchProgress progress = bridge.progress();
    QVERIFY(progress.proposed >= 3);
    QCOMPARE(progress.proposed, int(proposedIds.size()));
    QCOMPARE(progress.evaluated, int(evaluatedIds.size()));
    QCOMPARE(progress.evaluated, progress.proposed);
    QCOMPARE(progress.correct + progress.failed, progress.evaluated);
    QVERIFY(bridge.compiledCount() > 0);
    QVERIFY(bridge.compiledCount() <= progress.proposed);
    QCOMPARE(progress.generation, 2);

    // The workers were seen with their fake GPU.
    QVERIFY(!workers.isEmpty());
    QVERIFY(!bridge.workers().empty());
    QCOMPARE(bridge.workers().front().gpu.name, std::string("Fake GPU 0"));

    // What the signals said is what the archive holds.
    auto archive = Archive::open(QFile::encodeName(path).toStdString(), ArchiveMode::ReadOnly);
    QVERIFY(archive);
    QStringList stored;
    for (const Candidate &candidate : (*archive)->candidatesOfRun(runId))
        stored << QString::fromStdString(candidate.id);
    QCOMPARE(stored, proposedIds);
    QCOMPARE((*archive)->run(runId)->state, RunState::Finished);
}

void TestSearchBridge::pausesResumesAndStops()
{
    requireNvrtc();
    const QString path = newArchive(QStringLiteral("pause.kxdb"));
    SearchBridge bridge;
    bridge.setArchive(archiveRef(path, ArchiveMode::ReadWrite));
    bridge.setWorkerCommand({QStringLiteral(KX_FAKE_WORKER)});
    QSignalSpy started(&bridge, &SearchBridge::started);
    QSignalSpy evaluated(&bridge, &SearchBridge::candidateEvaluated);
    QSignalSpy generations(&bridge, &SearchBridge::generationFinished);
    QSignalSpy finished(&bridge, &SearchBridge::finished);
    QSignalSpy failed(&bridge, &SearchBridge::startFailed);

    QVERIFY(bridge.start(*findBuiltInOp("gelu_tanh"), smallSearch(1000, 2)));
    QTRY_VERIFY_WITH_TIMEOUT(!generations.isEmpty() || !failed.isEmpty(), kSearchTimeoutMs);
    QVERIFY(failed.isEmpty());
    const std::int64_t runId = started.first().first().toLongLong();

    bridge.pause();
    QCOMPARE(bridge.state(), SearchBridge::State::Paused);
    // The engine pauses between generations and records it; then nothing more is evaluated.
    QTRY_COMPARE_WITH_TIMEOUT(storedRunState(path, runId), RunState::Paused, kSearchTimeoutMs);
    QTest::qWait(300);
    const qsizetype whilePaused = evaluated.size();
    QTest::qWait(300);
    QCOMPARE(evaluated.size(), whilePaused);
    QCOMPARE(bridge.state(), SearchBridge::State::Paused);

    bridge.resume();
    QCOMPARE(bridge.state(), SearchBridge::State::Running);
    QTRY_VERIFY_WITH_TIMEOUT(evaluated.size() > whilePaused, kSearchTimeoutMs);

    bridge.cancel();
    QCOMPARE(bridge.state(), SearchBridge::State::Stopping);
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), kSearchTimeoutMs);
    QCOMPARE(finished.first().first().value<RunState>(), RunState::Cancelled);
    QCOMPARE(bridge.state(), SearchBridge::State::Idle);
    QCOMPARE(storedRunState(path, runId), RunState::Cancelled);
    m_stoppedRun = runId;
    m_stoppedArchive = path;
}

void TestSearchBridge::continuesAStoppedRun()
{
    requireNvrtc();
    if (m_stoppedRun == 0)
        QSKIP("needs the run stopped by pausesResumesAndStops");
    auto countCandidates = [this] {
        auto archive = Archive::open(QFile::encodeName(m_stoppedArchive).toStdString(), ArchiveMode::ReadOnly);
        return archive ? int((*archive)->candidatesOfRun(m_stoppedRun).size()) : -1;
    };
    const int before = countCandidates();
    QVERIFY(before > 0);

    SearchBridge bridge;
    bridge.setArchive(archiveRef(m_stoppedArchive, ArchiveMode::ReadWrite));
    bridge.setWorkerCommand({QStringLiteral(KX_FAKE_WORKER)});
    QSignalSpy started(&bridge, &SearchBridge::started);
    QSignalSpy proposed(&bridge, &SearchBridge::candidateProposed);
    QSignalSpy finished(&bridge, &SearchBridge::finished);
    QVERIFY(bridge.continueRun(m_stoppedRun));
    QTRY_VERIFY_WITH_TIMEOUT(!proposed.isEmpty(), kSearchTimeoutMs);
    QCOMPARE(started.first().first().toLongLong(), m_stoppedRun);
    QCOMPARE(bridge.budget().generations, 1000); // The run's own budget, read back from the archive.
    bridge.cancel();
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), kSearchTimeoutMs);
    QCOMPARE(finished.first().first().value<RunState>(), RunState::Cancelled);
    QVERIFY(countCandidates() > before);
}

void TestSearchBridge::reportsNoGpu()
{
    requireNvrtc();
    const QString path = newArchive(QStringLiteral("nogpu.kxdb"));
    SearchBridge bridge;
    bridge.setArchive(archiveRef(path, ArchiveMode::ReadWrite));
    bridge.setWorkerCommand({QStringLiteral(KX_FAKE_WORKER), QStringLiteral("--gpus"), QStringLiteral("0")});
    QSignalSpy started(&bridge, &SearchBridge::started);
    QSignalSpy failed(&bridge, &SearchBridge::startFailed);
    QSignalSpy finished(&bridge, &SearchBridge::finished);
    QVERIFY(bridge.start(*findBuiltInOp("relu"), smallSearch(1, 2)));
    QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), kSearchTimeoutMs);
    QCOMPARE(failed.first().at(1).value<ErrorKind>(), ErrorKind::NoGpu);
    QVERIFY(!failed.first().first().toString().isEmpty());
    QCOMPARE(bridge.state(), SearchBridge::State::Idle);
    QVERIFY(started.isEmpty());
    QVERIFY(finished.isEmpty());
    // Nothing half-made is left to browse.
    if (QFile::exists(path)) {
        auto archive = Archive::open(QFile::encodeName(path).toStdString(), ArchiveMode::ReadOnly);
        QVERIFY(archive);
        QVERIFY((*archive)->runs().empty());
    }
    // The bridge can start again after that.
    bridge.setWorkerCommand({QStringLiteral(KX_FAKE_WORKER)});
    QSignalSpy finishedAgain(&bridge, &SearchBridge::finished);
    QVERIFY(bridge.start(*findBuiltInOp("relu"), smallSearch(1, 2)));
    QTRY_VERIFY_WITH_TIMEOUT(!finishedAgain.isEmpty(), kSearchTimeoutMs);
    QCOMPARE(finishedAgain.first().first().value<RunState>(), RunState::Finished);
}

void TestSearchBridge::stopsWhileStarting()
{
    requireNvrtc();
    const QString path = newArchive(QStringLiteral("early.kxdb"));
    SearchBridge bridge;
    bridge.setArchive(archiveRef(path, ArchiveMode::ReadWrite));
    bridge.setWorkerCommand(
        {QStringLiteral(KX_FAKE_WORKER), QStringLiteral("--start-delay-ms"), QStringLiteral("800")});
    QSignalSpy started(&bridge, &SearchBridge::started);
    QSignalSpy finished(&bridge, &SearchBridge::finished);
    QVERIFY(bridge.start(*findBuiltInOp("relu"), smallSearch(1, 2)));
    bridge.cancel();
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished.first().first().value<RunState>(), RunState::Cancelled);
    QCOMPARE(bridge.state(), SearchBridge::State::Idle);
    // The start job notices, gives up and tears the session down on the pool.
    QThreadPool::globalInstance()->waitForDone();
    QCoreApplication::processEvents();
    QVERIFY(started.isEmpty());
    QCOMPARE(finished.size(), 1);
    if (QFile::exists(path)) {
        auto archive = Archive::open(QFile::encodeName(path).toStdString(), ArchiveMode::ReadOnly);
        QVERIFY(archive);
        QVERIFY((*archive)->runs().empty());
    }
}

void TestSearchBridge::refusesWithoutArchive()
{
    SearchBridge bridge;
    QSignalSpy failed(&bridge, &SearchBridge::startFailed);
    QVERIFY(!bridge.start(*findBuiltInOp("relu"), smallSearch(1, 2)));
    QCOMPARE(failed.size(), 1);
    QCOMPARE(failed.first().at(1).value<ErrorKind>(), ErrorKind::Failed); // no archive: not a missing GPU
    QCOMPARE(bridge.state(), SearchBridge::State::Idle);
}

// File > Open Archive Read-Only, then Search > Start: the search is refused and the file stays as it was.
void TestSearchBridge::refusesAnArchiveOpenedReadOnly()
{
    requireNvrtc();
    const QString path = newArchive(QStringLiteral("readonly.kxdb"));
    {
        auto archive = Archive::open(QFile::encodeName(path).toStdString());
        QVERIFY(archive);
    }
    const auto bytes = [&] {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    };
    const QByteArray before = bytes();
    QVERIFY(!before.isEmpty());

    MainWindow window;
    QVERIFY(window.openArchive(path, ArchiveSession::Access::ReadOnly));
    SearchBridge *bridge = window.searchBridge();
    bridge->setWorkerCommand({QStringLiteral(KX_FAKE_WORKER)});
    QSignalSpy failed(bridge, &SearchBridge::startFailed);
    QVERIFY(!bridge->start(*findBuiltInOp("relu"), smallSearch(1, 2)));
    QCOMPARE(failed.size(), 1);
    QVERIFY2(failed.first().at(0).toString().contains(QLatin1String("read-only")),
             qPrintable(failed.first().at(0).toString()));
    QCOMPARE(bridge->state(), SearchBridge::State::Idle);

    QSignalSpy manualFailed(bridge, &SearchBridge::manualEvaluationFailed);
    Candidate candidate;
    candidate.id = "hand-made";
    bridge->evaluateManual(*findBuiltInOp("relu"), candidate);
    QTRY_COMPARE(manualFailed.size(), 1);
    QVERIFY(manualFailed.first().at(1).toString().contains(QLatin1String("read-only")));

    window.close();
    QCOMPARE(bytes(), before);

    // Opened for writing, the same file searches as before.
    MainWindow writable;
    QVERIFY(writable.openArchive(path));
    QVERIFY(!writable.searchBridge()->archive().isReadOnly());
}

QTEST_MAIN(TestSearchBridge)
#include "tst_searchbridge.moc"
