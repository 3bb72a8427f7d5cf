// The flow of a tuning session through the window: open an op, start a search (the fake worker stands in for
// the GPU), watch the lineage grow while it runs, see it finish, reopen the archive and find the run again.
// Set KX_LINEAGE_SCREENSHOT to a file name to save an image of the lineage page at the end.
#include "qtestprinters.h"

#include "ui/kernelspage.h"
#include "ui/lineagegraph.h"
#include "ui/lineagepage.h"
#include "ui/lineagescene.h"
#include "ui/lineageview.h"
#include "ui/mainwindow.h"
#include "ui/opendialog.h"
#include "ui/runpanel.h"
#include "ui/searchbridge.h"

#include "core/archive/archive.h"
#include "core/eval/nvrtccompiler.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace kx;
using namespace kx::ui;

namespace {

constexpr int kSearchTimeoutMs = 180000;

/// Accepts the Open Op dialog with op selected as soon as it is shown.
void acceptOpenDialogWith(const QString &op)
{
    QTimer::singleShot(20, qApp, [op] {
        auto *dialog = qobject_cast<OpenDialog *>(QApplication::activeModalWidget());
        if (!dialog) {
            acceptOpenDialogWith(op);
            return;
        }
        if (!dialog->selectOp(op))
            dialog->reject();
        else
            dialog->accept();
    });
}

} // namespace

class TestRunFlow : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void openStartWatchFinishReopen();

private:
    QTemporaryDir m_dir;
};

void TestRunFlow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("KernelExplorerTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_runflow"));
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
    QSettings().clear();
}

void TestRunFlow::openStartWatchFinishReopen()
{
    if (!NvrtcCompiler::available())
        QSKIP("this build has no NVRTC; searches need it");
    const QString path = m_dir.filePath(QStringLiteral("flow.kxdb"));
    QStringList errors;
    MainWindow window;
    window.setErrorHandler([&errors](const QString &, const QString &message) { errors << message; });
    window.resize(1440, 900);
    window.show();
    QVERIFY(window.newArchive(path));
    window.searchBridge()->setWorkerCommand({QStringLiteral(KX_FAKE_WORKER)});

    // Open an op through the dialog, as the menu does.
    acceptOpenDialogWith(QStringLiteral("gelu_tanh"));
    window.openOp();
    QVERIFY(window.runPanel()->op());
    QCOMPARE(window.runPanel()->op()->name, std::string("gelu_tanh"));
    QVERIFY(window.runPanel()->startAction()->isEnabled());

    SearchSettings settings;
    settings.seed = 5;
    settings.childrenPerGeneration = 5;
    settings.budget.generations = 4;
    window.runPanel()->setSettings(settings);

    // Watch the lineage while the search runs.
    LineagePage *lineage = window.lineagePage();
    int nodesSeenWhileRunning = 0;
    connect(lineage, &LineagePage::layoutApplied, this, [&] {
        if (window.searchBridge()->isActive())
            nodesSeenWhileRunning = std::max(nodesSeenWhileRunning, lineage->scene()->nodeItemCount());
    });
    QSignalSpy started(window.searchBridge(), &SearchBridge::started);
    QSignalSpy finished(window.searchBridge(), &SearchBridge::finished);
    QSignalSpy failed(window.searchBridge(), &SearchBridge::startFailed);
    window.runPanel()->startAction()->trigger();
    QVERIFY(!window.runPanel()->startAction()->isEnabled());
    QVERIFY(window.runPanel()->stopAction()->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), kSearchTimeoutMs);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    QCOMPARE(finished.first().first().value<RunState>(), RunState::Finished);
    const std::int64_t runId = started.first().first().toLongLong();
    QCOMPARE(lineage->runId(), runId);
    QCOMPARE(window.findChild<QTabWidget *>(QStringLiteral("pages"))->currentWidget(), lineage);
    QVERIFY2(nodesSeenWhileRunning > 0, "no lineage node appeared while the search ran");

    int stored = 0;
    {
        auto archive = Archive::open(QFile::encodeName(path).toStdString(), ArchiveMode::ReadOnly);
        QVERIFY(archive);
        stored = int((*archive)->candidatesOfRun(runId).size());
        QCOMPARE((*archive)->run(runId)->state, RunState::Finished);
    }
    QVERIFY(stored > 5);
    QTRY_COMPARE(lineage->scene()->nodeItemCount(), stored);
    QVERIFY(nodesSeenWhileRunning <= stored);
    QVERIFY(window.runPanel()->countsText().contains(QStringLiteral("Proposed %1").arg(stored)));
    QVERIFY(window.runPanel()->continueAction()->isEnabled() || !lineage->isLoading());

    // Selecting a node selects the kernel in the rest of the window, and the other way round.
    QTRY_VERIFY(!window.kernelsPage()->isLoading());
    const QString picked = lineage->graph().node(stored - 1).id;
    QSignalSpy shown(&window, &MainWindow::candidateShown);
    QVERIFY(lineage->selectCandidate(picked));
    lineage->navigate(0); // Up: to its parent, as the keyboard does.
    const QString parent = lineage->currentCandidateId();
    QVERIFY(!parent.isEmpty());
    QVERIFY(parent != picked);
    QTRY_COMPARE(window.kernelsPage()->currentCandidateId(), parent);
    QTRY_VERIFY(!shown.isEmpty() && shown.last().first().toString() == parent);
    QVERIFY(window.kernelsPage()->selectCandidate(picked));
    QTRY_COMPARE(lineage->currentCandidateId(), picked);

    // Reopen the archive: the run is listed and its lineage reads back complete.
    window.closeArchive();
    QCOMPARE(lineage->runId(), 0);
    QVERIFY(window.openArchive(path));
    auto *runs = lineage->findChild<QComboBox *>(QStringLiteral("lineageRun"));
    QTRY_VERIFY(runs->findData(QVariant::fromValue<qint64>(runId)) >= 0);
    QSignalSpy loaded(lineage, &LineagePage::loaded);
    lineage->showRun(runId);
    QTRY_VERIFY(!loaded.isEmpty());
    QCOMPARE(loaded.first().first().toInt(), stored);
    QTRY_COMPARE(lineage->scene()->nodeItemCount(), stored);
    int correct = 0;
    for (int i = 0; i < lineage->graph().size(); ++i)
        correct += lineage->graph().outcome(i) == LineageOutcome::Correct;
    QVERIFY(correct > 0);
    QVERIFY(lineage->graph().bestNode() >= 0);
    QVERIFY(errors.isEmpty());

    const QString image = qEnvironmentVariable("KX_LINEAGE_SCREENSHOT");
    if (!image.isEmpty()) {
        // Room for the lineage: the source view is not what this picture is about.
        window.findChild<QDockWidget *>(QStringLiteral("sourceDock"))->hide();
        lineage->setShowPathToBest(true);
        lineage->view()->fit();
        QVERIFY(window.kernelsPage()->selectCandidate(lineage->graph().node(stored - 1).id));
        QTRY_COMPARE(lineage->currentCandidateId(), lineage->graph().node(stored - 1).id);
        QTest::qWait(500);
        QVERIFY(window.grab().save(image));
    }
}

QTEST_MAIN(TestRunFlow)
#include "tst_runflow.moc"
