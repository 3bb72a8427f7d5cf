// The flow of a tuning session through the window: open an op, start a search (the fake worker stands in for
// the GPU), watch the lineage grow while it runs, see it finish, compare a kernel with its parent, accept it
// with a reason (badges follow, undo too), reopen the archive and find the run and the verdict again; then
// make a new candidate from one by hand and evaluate it.
// With KX_SCREENSHOT_DIR set, it saves an image of the lineage page there (lineage.png) at the end.
#include "qtestprinters.h"
#include "screenshotsupport.h"

#include "ui/common/format.h"
#include "ui/diff/diffpane.h"
#include "ui/diff/diffview.h"
#include "ui/kernels/candidateview.h"
#include "ui/kernels/kernelsmodel.h"
#include "ui/kernels/kernelspage.h"
#include "ui/kernels/manualeditdialog.h"
#include "ui/kernels/manualedits.h"
#include "ui/lineage/lineagegraph.h"
#include "ui/lineage/lineagepage.h"
#include "ui/lineage/lineagescene.h"
#include "ui/lineage/lineageview.h"
#include "ui/review/verdictcontroller.h"
#include "ui/review/verdictdialog.h"
#include "ui/search/runpanel.h"
#include "ui/search/searchbridge.h"
#include "ui/window/mainwindow.h"
#include "ui/window/opendialog.h"

#include "core/archive/archive.h"
#include "core/plan/nvrtccompiler.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

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

/// Fills in the verdict dialog (reason and note) and accepts it as soon as it is shown.
void acceptVerdictDialogWith(const QString &reason, const QString &note)
{
    QTimer::singleShot(20, qApp, [reason, note] {
        auto *dialog = qobject_cast<VerdictDialog *>(QApplication::activeModalWidget());
        if (!dialog) {
            acceptVerdictDialogWith(reason, note);
            return;
        }
        dialog->setReasonCode(reason);
        dialog->setNote(note);
        dialog->accept();
    });
}

/// The verdict badge the kernels table shows for a candidate ("" when the row is not there).
QString kernelsBadge(const KernelsPage *page, const QString &candidateId)
{
    const KernelsModel *model = page->model();
    for (int row = 0; row < model->rowCount(); ++row) {
        const QModelIndex index = model->index(row, KernelsModel::VerdictColumn);
        if (index.data(KernelsModel::CandidateIdRole).toString() == candidateId)
            return index.data().toString();
    }
    return {};
}

std::optional<bool> lineageBadge(const LineagePage *page, const QString &candidateId)
{
    const int index = page->graph().indexOf(candidateId);
    return index < 0 ? std::nullopt : page->graph().node(index).accepted;
}

} // namespace

class TestRunFlow : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void openStartWatchFinishReopen();
    void manualCandidateFromLineage();
    void manualCandidateWithoutGpu();
    void workerCommandIsCheckedAndKept();

private:
    QTemporaryDir m_dir;
    QString m_archivePath; // The first test's archive, which the next one builds on.
    std::int64_t m_runId = 0;
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
    test::useAsHome(m_dir.filePath(QStringLiteral("home")));
    const QString path = test::homeArchivePath(QStringLiteral("gelu-search"));
    QStringList errors;
    MainWindow window;
    window.setErrorHandler([&errors](const QString &, const QString &message) { errors << message; });
    window.resize(1440, 900);
    window.show();
    QVERIFY(window.newArchive(path));
    // The worker command as a person types it into the run panel (quoted, with an argument).
    auto *worker = window.findChild<QLineEdit *>(QStringLiteral("searchWorker"));
    QVERIFY(worker);
    worker->setText(QStringLiteral("'%1' --gpus 1").arg(QStringLiteral(KX_FAKE_WORKER)));
    QCOMPARE(window.searchBridge()->workerCommand(),
             (QStringList{QStringLiteral(KX_FAKE_WORKER), QStringLiteral("--gpus"), QStringLiteral("1")}));

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

    // The diff page compares the selected kernel with its first parent: the change shows (once the page is shown:
    // hidden, it reads nothing).
    DiffView *diff = window.diffView();
    window.findChild<QTabWidget *>(QStringLiteral("pages"))->setCurrentWidget(diff);
    QTRY_VERIFY(diff->rightId() == picked && !diff->isLoading());
    QCOMPARE(diff->leftId(), parent);
    QVERIFY(diff->sourcePane()->hunkCount() + diff->planPane()->hunkCount() > 0);

    // Accept it with a reason: stored, and the badges in the table and the lineage follow, through undo too.
    QTRY_VERIFY(!window.kernelsPage()->isLoading());
    QCOMPARE(kernelsBadge(window.kernelsPage(), picked), Format::verdict(std::nullopt));
    acceptVerdictDialogWith(QStringLiteral("verified-speedup"), QStringLiteral("re-measured by hand"));
    window.findChild<QAction *>(QStringLiteral("acceptAction"))->trigger();
    {
        auto archive = Archive::open(QFile::encodeName(path).toStdString(), ArchiveMode::ReadOnly);
        QVERIFY(archive);
        const std::optional<Verdict> verdict = (*archive)->currentVerdict(picked.toStdString());
        QVERIFY(verdict);
        QVERIFY(verdict->accepted);
        QCOMPARE(verdict->reasonCode, std::string("verified-speedup"));
        QCOMPARE(verdict->note, std::string("re-measured by hand"));
    }
    QTRY_COMPARE(lineageBadge(lineage, picked), std::optional<bool>(true));
    QTRY_COMPARE(kernelsBadge(window.kernelsPage(), picked), Format::verdict(true));
    window.verdicts()->undoStack()->undo();
    QTRY_COMPARE(lineageBadge(lineage, picked), std::optional<bool>());
    QTRY_COMPARE(kernelsBadge(window.kernelsPage(), picked), Format::verdict(std::nullopt));
    window.verdicts()->undoStack()->redo();
    QTRY_COMPARE(lineageBadge(lineage, picked), std::optional<bool>(true));
    QTRY_COMPARE(kernelsBadge(window.kernelsPage(), picked), Format::verdict(true));

    // Reopen the archive: the run is listed and its lineage reads back complete. Choosing a kernel in the
    // table and then opening the Lineage page shows that kernel's run with the kernel selected, not "No run".
    window.closeArchive();
    QCOMPARE(lineage->runId(), 0);
    QVERIFY(window.openArchive(path));
    auto *runs = lineage->findChild<QComboBox *>(QStringLiteral("lineageRun"));
    QTRY_VERIFY(runs->findData(QVariant::fromValue<qint64>(runId)) >= 0);
    auto *pages = window.findChild<QTabWidget *>(QStringLiteral("pages"));
    pages->setCurrentWidget(window.kernelsPage());
    QTRY_VERIFY(!window.kernelsPage()->isLoading());
    QVERIFY(window.kernelsPage()->selectCandidate(picked));
    QTRY_COMPARE(window.candidateView()->candidateId(), picked);
    QSignalSpy loaded(lineage, &LineagePage::loaded);
    QCOMPARE(lineage->runId(), 0);
    pages->setCurrentWidget(lineage);
    QTRY_VERIFY(!loaded.isEmpty());
    QCOMPARE(lineage->runId(), runId);
    QTRY_COMPARE(lineage->currentCandidateId(), picked);
    QCOMPARE(loaded.first().first().toInt(), stored);
    QTRY_COMPARE(lineage->scene()->nodeItemCount(), stored);
    int correct = 0;
    for (int i = 0; i < lineage->graph().size(); ++i)
        correct += lineage->graph().outcome(i) == LineageOutcome::Correct;
    QVERIFY(correct > 0);
    QVERIFY(lineage->graph().bestNode() >= 0);
    // The verdict, with its badges, is still there.
    QCOMPARE(lineageBadge(lineage, picked), std::optional<bool>(true));
    QTRY_VERIFY(!window.kernelsPage()->isLoading());
    QCOMPARE(kernelsBadge(window.kernelsPage(), picked), Format::verdict(true));
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
    m_archivePath = path;
    m_runId = runId;

    if (qEnvironmentVariableIsSet("KX_SCREENSHOT_DIR")) {
        // Room for the lineage: the source view is not what this picture is about.
        window.findChild<QDockWidget *>(QStringLiteral("sourceDock"))->hide();
        lineage->setShowPathToBest(true);
        lineage->view()->fit();
        QVERIFY(window.kernelsPage()->selectCandidate(lineage->graph().node(stored - 1).id));
        QTRY_COMPARE(lineage->currentCandidateId(), lineage->graph().node(stored - 1).id);
        QTest::qWait(500);
        test::saveScreenshot(&window, QStringLiteral("lineage.png"));
    }
}

void TestRunFlow::manualCandidateFromLineage()
{
    if (m_archivePath.isEmpty())
        QSKIP("needs the run of openStartWatchFinishReopen");
    QStringList errors;
    MainWindow window;
    window.setErrorHandler([&errors](const QString &, const QString &message) { errors << message; });
    window.resize(1440, 900);
    window.show();
    QVERIFY(window.openArchive(m_archivePath));
    window.searchBridge()->setWorkerCommand({QStringLiteral(KX_FAKE_WORKER)});
    LineagePage *lineage = window.lineagePage();
    QSignalSpy loaded(lineage, &LineagePage::loaded);
    lineage->showRun(m_runId);
    QTRY_VERIFY(!loaded.isEmpty());
    const int nodes = lineage->graph().size();
    int correctNode = -1;
    for (int i = 0; i < nodes && correctNode < 0; ++i)
        if (lineage->graph().outcome(i) == LineageOutcome::Correct)
            correctNode = i;
    QVERIFY(correctNode >= 0);
    const QString original = lineage->graph().node(correctNode).id;
    auto storedCount = [this] {
        auto archive = Archive::open(QFile::encodeName(m_archivePath).toStdString(), ArchiveMode::ReadOnly);
        return archive ? int((*archive)->candidates().size()) : -1;
    };
    const int storedBefore = storedCount();

    // Select the kernel and ask for a new candidate from it, as Ctrl+E does.
    QTRY_VERIFY(!window.kernelsPage()->isLoading());
    QVERIFY(window.kernelsPage()->selectCandidate(original));
    QTRY_COMPARE(lineage->currentCandidateId(), original);
    QSignalSpy opened(window.manualEdits(), &ManualEdits::dialogOpened);
    QTRY_VERIFY(window.findChild<QAction *>(QStringLiteral("newCandidateAction"))->isEnabled());
    window.findChild<QAction *>(QStringLiteral("newCandidateAction"))->trigger();
    QTRY_VERIFY(!opened.isEmpty());
    ManualEditDialog *dialog = window.manualEdits()->dialog();
    QVERIFY(dialog);
    QCOMPARE(dialog->description(), QStringLiteral("manual edit of %1").arg(original.left(12)));

    // A broken edit is refused with the compiler's message, and nothing is stored.
    const QString source = dialog->source();
    QSignalSpy checked(dialog, &ManualEditDialog::checked);
    QSignalSpy submitted(dialog, &ManualEditDialog::submitted);
    dialog->setSource(source + QStringLiteral("\n__device__ float broken() { return undeclared_thing; }\n"));
    dialog->submit();
    QTRY_VERIFY_WITH_TIMEOUT(!checked.isEmpty(), kSearchTimeoutMs);
    QVERIFY(submitted.isEmpty());
    QVERIFY2(dialog->messageText().contains(QStringLiteral("undeclared_thing")), qPrintable(dialog->messageText()));
    QVERIFY2(dialog->messageText().contains(QStringLiteral("line ")), qPrintable(dialog->messageText()));
    QCOMPARE(storedCount(), storedBefore);

    // A good edit is stored as a manual child of the original in its run, and evaluated on the fake worker.
    dialog->setSource(QStringLiteral("// Tuned by hand.\n") + source);
    dialog->setDescription(QStringLiteral("comment added by hand"));
    QSignalSpy stored(window.manualEdits(), &ManualEdits::candidateStored);
    QSignalSpy evaluated(window.manualEdits(), &ManualEdits::evaluated);
    QSignalSpy unevaluated(window.manualEdits(), &ManualEdits::storedUnevaluated);
    dialog->submit();
    QTRY_VERIFY_WITH_TIMEOUT(!stored.isEmpty(), kSearchTimeoutMs);
    const Candidate child = stored.first().first().value<Candidate>();
    QTRY_VERIFY_WITH_TIMEOUT(!evaluated.isEmpty() || !unevaluated.isEmpty(), kSearchTimeoutMs);
    QVERIFY2(unevaluated.isEmpty(), unevaluated.isEmpty() ? "" : qPrintable(unevaluated.first().at(1).toString()));
    QCOMPARE(storedCount(), storedBefore + 1);
    {
        auto archive = Archive::open(QFile::encodeName(m_archivePath).toStdString(), ArchiveMode::ReadOnly);
        QVERIFY(archive);
        const std::optional<Candidate> read = (*archive)->candidate(child.id);
        QVERIFY(read);
        QCOMPARE(read->origin, Origin::Manual);
        QCOMPARE(read->parentIds, std::vector<std::string>{original.toStdString()});
        QCOMPARE(read->operatorName, std::string("manual edit"));
        QCOMPARE(read->description, std::string("comment added by hand"));
        QCOMPARE(read->runId, std::optional<std::int64_t>(m_runId));
        QVERIFY(read->source.starts_with("// Tuned by hand."));
        const std::vector<Evaluation> evaluations = (*archive)->evaluations(child.id);
        QCOMPARE(evaluations.size(), std::size_t(1));
        QCOMPARE(evaluations.front().status, EvalStatus::Correct);
        QCOMPARE(evaluations.front().runId, std::optional<std::int64_t>(m_runId));
    }

    // The lineage shows it as a child of the original, evaluated.
    QTRY_VERIFY(lineage->graph().indexOf(QString::fromStdString(child.id)) >= 0);
    const int childNode = lineage->graph().indexOf(QString::fromStdString(child.id));
    QCOMPARE(lineage->graph().node(childNode).origin, Origin::Manual);
    QCOMPARE(lineage->graph().node(childNode).parentIds, QStringList{original});
    QVERIFY(lineage->graph().parents(childNode).contains(lineage->graph().indexOf(original)));
    QTRY_COMPARE(lineage->graph().outcome(childNode), LineageOutcome::Correct);
    QTRY_COMPARE(lineage->scene()->nodeItemCount(), nodes + 1);

    // Submitting the very same kernel again stores nothing.
    QSignalSpy opened2(window.manualEdits(), &ManualEdits::dialogOpened);
    window.manualEdits()->open(QString::fromStdString(child.id));
    QTRY_VERIFY(!opened2.isEmpty());
    ManualEditDialog *again = window.manualEdits()->dialog();
    QSignalSpy checkedAgain(again, &ManualEditDialog::checked);
    again->submit();
    QTRY_VERIFY_WITH_TIMEOUT(!checkedAgain.isEmpty(), kSearchTimeoutMs);
    QTRY_VERIFY(again->messageText().contains(QStringLiteral("already")));
    QCOMPARE(storedCount(), storedBefore + 1);
    again->close();
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
}

void TestRunFlow::manualCandidateWithoutGpu()
{
    if (m_archivePath.isEmpty())
        QSKIP("needs the run of openStartWatchFinishReopen");
    MainWindow window;
    QStringList errors;
    window.setErrorHandler([&errors](const QString &, const QString &message) { errors << message; });
    window.show();
    QVERIFY(window.openArchive(m_archivePath));
    // A worker that finds no GPU, as `kx worker` does on a machine without one.
    window.searchBridge()->setWorkerCommand(
        {QStringLiteral(KX_FAKE_WORKER), QStringLiteral("--gpus"), QStringLiteral("0")});
    std::string original;
    {
        auto archive = Archive::open(QFile::encodeName(m_archivePath).toStdString(), ArchiveMode::ReadOnly);
        QVERIFY(archive);
        original = (*archive)->candidatesOfRun(m_runId).front().id;
    }
    QSignalSpy opened(window.manualEdits(), &ManualEdits::dialogOpened);
    window.manualEdits()->open(QString::fromStdString(original));
    QTRY_VERIFY(!opened.isEmpty());
    ManualEditDialog *dialog = window.manualEdits()->dialog();
    dialog->setSource(QStringLiteral("// Stored without a GPU.\n") + dialog->source());
    QSignalSpy stored(window.manualEdits(), &ManualEdits::candidateStored);
    QSignalSpy unevaluated(window.manualEdits(), &ManualEdits::storedUnevaluated);
    dialog->submit();
    QTRY_VERIFY_WITH_TIMEOUT(!unevaluated.isEmpty(), kSearchTimeoutMs);
    QCOMPARE(stored.size(), 1);
    QCOMPARE(unevaluated.first().at(2).value<ErrorKind>(), ErrorKind::NoGpu);
    const QString message = unevaluated.first().at(1).toString();
    QVERIFY2(message.contains(QStringLiteral("stored unevaluated")), qPrintable(message));
    QCOMPARE(window.statusBar()->currentMessage(), message);
    const Candidate child = stored.first().first().value<Candidate>();
    auto archive = Archive::open(QFile::encodeName(m_archivePath).toStdString(), ArchiveMode::ReadOnly);
    QVERIFY(archive);
    QVERIFY((*archive)->candidate(child.id));
    QVERIFY((*archive)->evaluations(child.id).empty());
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
}

QTEST_MAIN(TestRunFlow)
// The worker field: a command a shell would not run as one program is refused before anything starts, with the
// reason; an emptied field goes back to this computer's kx worker; what was typed is kept for the next session.
void TestRunFlow::workerCommandIsCheckedAndKept()
{
    test::useAsHome(m_dir.filePath(QStringLiteral("home-worker")));
    MainWindow window;
    window.setErrorHandler([](const QString &, const QString &) {});
    window.show();
    QVERIFY(window.newArchive(test::homeArchivePath(QStringLiteral("worker"))));
    acceptOpenDialogWith(QStringLiteral("relu"));
    window.openOp();
    QVERIFY(window.runPanel()->startAction()->isEnabled());

    auto *worker = window.findChild<QLineEdit *>(QStringLiteral("searchWorker"));
    QVERIFY(worker);
    worker->setText(QStringLiteral("kx worker; rm -rf ~"));
    QSignalSpy started(window.searchBridge(), &SearchBridge::started);
    window.runPanel()->startAction()->trigger();
    QVERIFY(window.runPanel()->startAction()->isEnabled()); // nothing started
    QCOMPARE(window.searchBridge()->state(), SearchBridge::State::Idle);
    const auto *message = window.findChild<QLabel *>(QStringLiteral("runMessage"));
    QVERIFY(message);
    QVERIFY2(message->text().contains(QStringLiteral("Worker:")) && message->text().contains(QStringLiteral("quote")),
             qPrintable(message->text()));
    QVERIFY(started.isEmpty());

    worker->clear();
    QCOMPARE(window.searchBridge()->workerCommand(), SearchBridge::defaultWorkerCommand());

    worker->setText(QStringLiteral("ssh gpu-box kx worker"));
    emit worker->editingFinished();
    QCOMPARE(QSettings().value(QStringLiteral("search/workerCommand")).toString(),
             QStringLiteral("ssh gpu-box kx worker"));
    MainWindow next;
    QCOMPARE(next.findChild<QLineEdit *>(QStringLiteral("searchWorker"))->text(),
             QStringLiteral("ssh gpu-box kx worker"));
    QCOMPARE(next.searchBridge()->workerCommand(), (QStringList{QStringLiteral("ssh"), QStringLiteral("gpu-box"),
                                                                QStringLiteral("kx"), QStringLiteral("worker")}));
    QSettings().remove(QStringLiteral("search/workerCommand"));
}

#include "tst_runflow.moc"
