// GUI smoke test of the main window: opening archives, showing a kernel, and refusing bad files.
#include "archivefixture.h"

#include "ui/common/archivereader.h"
#include "ui/common/codeview.h"
#include "ui/diff/diffview.h"
#include "ui/kernels/candidateview.h"
#include "ui/kernels/evaluationspanel.h"
#include "ui/kernels/kernelsmodel.h"
#include "ui/kernels/kernelsourceview.h"
#include "ui/kernels/kernelspage.h"
#include "ui/kernels/kernelsproxymodel.h"
#include "ui/lineage/lineagepage.h"
#include "ui/plots/plotspage.h"
#include "ui/window/archivestatuswidget.h"
#include "ui/window/mainwindow.h"
#include "ui/window/recentarchives.h"
#include "ui/window/samplearchive.h"

#include <sqlite3.h>

#include <QAction>
#include <QComboBox>
#include <QCompleter>
#include <QCryptographicHash>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QMenu>
#include <QMimeData>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>
#include <QTreeWidget>

using namespace kx;
using namespace kx::ui;

namespace {

QString q(const std::string &text)
{
    return QString::fromStdString(text);
}

QByteArray fileHash(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256);
}

void execSql(const QString &path, const char *sql)
{
    sqlite3 *db = nullptr;
    QCOMPARE(sqlite3_open(QFile::encodeName(path).constData(), &db), SQLITE_OK);
    char *error = nullptr;
    const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &error);
    const QString message = QString::fromUtf8(error ? error : "");
    sqlite3_free(error);
    sqlite3_close(db);
    QVERIFY2(rc == SQLITE_OK, qPrintable(message));
}

/// Collects reported errors instead of showing message boxes.
struct ErrorLog
{
    QStringList messages;
    void attach(MainWindow &window)
    {
        window.setErrorHandler([this](const QString &, const QString &message) { messages << message; });
    }
};

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void showsRowsAndSelectedKernel();
    void refusesBadFiles_data();
    void refusesBadFiles();
    void opensReadOnlyFileForBrowsing();
    void opensReadOnlyOnRequest();
    void dropOpensArchive();
    void newArchiveRefusesExistingFile();
    void startupOpensDefaultThenLastArchive();
    void recentArchivesAndClose();
    void parentLinkSelectsParent();
    void savesWindowState();
    void restoresWindowLayout();
    void anyTwoKernelsCanBeDiffed();
    void hiddenPagesReadWhenShown();
    void opensTheSampleArchive();

private:
    /// Opens the sample archive in the window and waits for its rows.
    void openSample(MainWindow &window);

    QTemporaryDir m_dir;
    QString m_samplePath;
    test::SampleArchive m_sample;
};

void TestMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QLocale::setDefault(QLocale::c());
    QVERIFY(m_dir.isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("KernelExplorerTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
    m_samplePath = m_dir.filePath(QStringLiteral("sample.kxdb"));
    m_sample = test::SampleArchive::write(m_samplePath);
}

void TestMainWindow::init()
{
    QSettings().clear();
}

void TestMainWindow::openSample(MainWindow &window)
{
    QVERIFY(window.openArchive(m_samplePath));
    QTRY_COMPARE(window.kernelsPage()->model()->rowCount(), 5);
}

void TestMainWindow::showsRowsAndSelectedKernel()
{
    MainWindow window;
    ErrorLog errors;
    errors.attach(window);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    openSample(window);
    QCOMPARE(window.session()->path(), m_samplePath);
    QVERIFY(!window.session()->isReadOnly());
    QVERIFY(window.windowFilePath().endsWith(QLatin1String("sample.kxdb")));
    QTRY_COMPARE(window.archiveStatus()->countsText(), QStringLiteral("Kernels: 5 · Evaluations: 5 · GPUs: 2"));
    QVERIFY(window.archiveStatus()->pathText().endsWith(QLatin1String("sample.kxdb")));
    QVERIFY(!window.archiveStatus()->readOnlyShown());

    // Click kernel B's row as a user would.
    KernelsPage *page = window.kernelsPage();
    QTableView *view = page->view();
    const QModelIndex source = page->model()->index(page->model()->rowOf(q(m_sample.b)), KernelsModel::OpColumn);
    const QModelIndex index = page->proxy()->mapFromSource(source);
    QVERIFY(index.isValid());
    view->scrollTo(index);
    QSignalSpy shown(&window, &MainWindow::candidateShown);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(index).center());
    QCOMPARE(page->currentCandidateId(), q(m_sample.b));
    QTRY_COMPARE(window.candidateView()->candidateId(), q(m_sample.b));
    QCOMPARE(shown.last().first().toString(), q(m_sample.b));

    QCOMPARE(window.candidateView()->sourceView()->text(), q(m_sample.sourceB));
    QVERIFY(window.candidateView()->planView()->text().contains(QLatin1String("\"kernel\": \"k\"")));
    QCOMPARE(window.candidateView()->referenceView()->text(), QStringLiteral("torch.relu(x)"));

    EvaluationsPanel *panel = window.evaluationsPanel();
    QCOMPARE(panel->evaluationCount(), 2);
    QTreeWidget *tree = panel->tree();
    QCOMPARE(tree->topLevelItem(0)->text(0), QStringLiteral("NVIDIA H100 80GB HBM3"));
    QVERIFY(tree->topLevelItem(0)->text(1).startsWith(QStringLiteral("correct · 10.00×")));
    QCOMPARE(tree->topLevelItem(1)->text(0), QStringLiteral("NVIDIA A100-SXM4-80GB"));
    QVERIFY(tree->topLevelItem(1)->text(1).startsWith(QStringLiteral("correct · 8.00×")));
    const QList<QTreeWidgetItem *> flags =
        tree->findItems(QStringLiteral("Flags"), Qt::MatchExactly | Qt::MatchRecursive);
    QCOMPARE(flags.size(), 1);
    QCOMPARE(flags.first()->childCount(), 1);
    QCOMPARE(flags.first()->child(0)->text(0), QStringLiteral("suspicious"));
    QCOMPARE(flags.first()->child(0)->text(1), QStringLiteral("speedup: 10, threshold: 5"));
    QVERIFY(flags.first()->child(0)->toolTip(1).contains(QLatin1String("\"threshold\": 5")));
    QCOMPARE(tree->findItems(QStringLiteral("Baseline"), Qt::MatchExactly | Qt::MatchRecursive).size(), 2);
    QVERIFY(panel->verdictText().startsWith(QLatin1String("Rejected: suspicious-timing")));

    // Kernel C failed to compile: the panel says so and shows the compiler log.
    QVERIFY(page->selectCandidate(q(m_sample.c)));
    QTRY_COMPARE(window.candidateView()->candidateId(), q(m_sample.c));
    QCOMPARE(panel->evaluationCount(), 1);
    QVERIFY(tree->topLevelItem(0)->text(1).startsWith(QLatin1String("compile error")));
    QCOMPARE(tree->findItems(QStringLiteral("Log"), Qt::MatchExactly | Qt::MatchRecursive).size(), 1);

    // Kernel D was never evaluated.
    QVERIFY(page->selectCandidate(q(m_sample.d)));
    QTRY_COMPARE(window.candidateView()->candidateId(), q(m_sample.d));
    QCOMPARE(panel->evaluationCount(), 0);
    QVERIFY(panel->verdictText().contains(QLatin1String("No evaluations yet.")));
    QVERIFY(errors.messages.isEmpty());
}

void TestMainWindow::refusesBadFiles_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("expectedText");
    QTest::newRow("text file") << "text"
                               << "not a Kernel Explorer archive";
    QTest::newRow("database of another program") << "foreign"
                                                 << "another program";
    QTest::newRow("newer schema") << "newer"
                                  << "newer than this program understands";
    QTest::newRow("missing file") << "missing"
                                  << "does not exist";
    QTest::newRow("folder") << "folder"
                            << "is not a file";
}

void TestMainWindow::refusesBadFiles()
{
    QFETCH(QString, kind);
    QFETCH(QString, expectedText);

    const QString bad = m_dir.filePath(QStringLiteral("bad-%1.kxdb").arg(kind));
    if (kind == QLatin1String("text")) {
        QFile file(bad);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("Not an archive at all.\n");
    } else if (kind == QLatin1String("foreign")) {
        execSql(bad, "CREATE TABLE notes(text TEXT); INSERT INTO notes VALUES('hello');");
    } else if (kind == QLatin1String("newer")) {
        test::openWritable(bad).reset();
        execSql(bad, "PRAGMA journal_mode=DELETE; UPDATE schema_version SET version = 999;");
    } else if (kind == QLatin1String("folder")) {
        QVERIFY(QDir().mkpath(bad));
    }
    const QByteArray before = fileHash(bad);

    MainWindow window;
    ErrorLog errors;
    errors.attach(window);
    openSample(window);
    QVERIFY(!window.openArchive(bad));

    QCOMPARE(errors.messages.size(), 1);
    QVERIFY2(errors.messages.first().contains(expectedText), qPrintable(errors.messages.first()));
    // The current archive stays open and shown; the bad file is untouched.
    QCOMPARE(window.session()->path(), m_samplePath);
    QVERIFY(window.session()->isOpen());
    QCOMPARE(window.kernelsPage()->model()->rowCount(), 5);
    QCOMPARE(archiveFilePath(window.kernelsPage()->archive()), m_samplePath);
    QCOMPARE(fileHash(bad), before);
    QVERIFY(!window.recentArchives()->paths().contains(bad));
}

void TestMainWindow::opensReadOnlyFileForBrowsing()
{
    const QString path = m_dir.filePath(QStringLiteral("readonly.kxdb"));
    QVERIFY(QFile::copy(m_samplePath, path));
    QVERIFY(QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::ReadUser | QFileDevice::ReadGroup
                                            | QFileDevice::ReadOther));
    const QByteArray before = fileHash(path);

    MainWindow window;
    ErrorLog errors;
    errors.attach(window);
    QVERIFY2(window.openArchive(path), qPrintable(errors.messages.join(QLatin1Char('\n'))));
    QVERIFY(window.session()->isReadOnly());
    QVERIFY(window.archiveStatus()->readOnlyShown());
    QTRY_COMPARE(window.kernelsPage()->model()->rowCount(), 5);
    QVERIFY(window.kernelsPage()->selectCandidate(q(m_sample.e)));
    QTRY_COMPARE(window.evaluationsPanel()->evaluationCount(), 1);
    QVERIFY(errors.messages.isEmpty());
    QCOMPARE(fileHash(path), before);
    QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
}

void TestMainWindow::opensReadOnlyOnRequest()
{
    MainWindow window;
    QVERIFY(window.openArchive(m_samplePath, ArchiveSession::Access::ReadOnly));
    QVERIFY(window.session()->isReadOnly());
    QVERIFY(window.archiveStatus()->readOnlyShown());
    QTRY_COMPARE(window.kernelsPage()->model()->rowCount(), 5);

    QVERIFY(window.openArchive(m_samplePath));
    QVERIFY(!window.session()->isReadOnly());
    QVERIFY(!window.archiveStatus()->readOnlyShown());
}

void TestMainWindow::dropOpensArchive()
{
    const QString other = m_dir.filePath(QStringLiteral("dropped.kxdb"));
    test::openWritable(other).reset();

    MainWindow window;
    ErrorLog errors;
    errors.attach(window);
    openSample(window);

    QMimeData twoFiles;
    twoFiles.setUrls({QUrl::fromLocalFile(other), QUrl::fromLocalFile(m_samplePath)});
    QDragEnterEvent refused(QPoint(10, 10), Qt::CopyAction, &twoFiles, Qt::LeftButton, Qt::NoModifier);
    refused.setAccepted(false);
    QCoreApplication::sendEvent(&window, &refused);
    QVERIFY(!refused.isAccepted());

    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(other)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    enter.setAccepted(false);
    QCoreApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &drop);

    QCOMPARE(window.session()->path(), other);
    QTRY_VERIFY(!window.kernelsPage()->isLoading());
    QCOMPARE(window.kernelsPage()->model()->rowCount(), 0);
    QVERIFY(errors.messages.isEmpty());
}

void TestMainWindow::newArchiveRefusesExistingFile()
{
    MainWindow window;
    ErrorLog errors;
    errors.attach(window);
    openSample(window);
    const QByteArray before = fileHash(m_samplePath);
    QVERIFY(!window.newArchive(m_samplePath));
    QCOMPARE(errors.messages.size(), 1);
    QVERIFY(errors.messages.first().contains(QLatin1String("already exists")));
    QCOMPARE(fileHash(m_samplePath), before);
    QCOMPARE(window.session()->path(), m_samplePath);

    const QString fresh = m_dir.filePath(QStringLiteral("new/sub/fresh.kxdb"));
    QVERIFY(window.newArchive(fresh));
    QVERIFY(QFile::exists(fresh));
    QCOMPARE(window.session()->path(), fresh);
    QTRY_VERIFY(!window.kernelsPage()->isLoading());
    QCOMPARE(window.kernelsPage()->model()->rowCount(), 0);
    QTRY_COMPARE(window.archiveStatus()->countsText(), QStringLiteral("Kernels: 0 · Evaluations: 0 · GPUs: 0"));
}

void TestMainWindow::startupOpensDefaultThenLastArchive()
{
    const QString defaultPath = m_dir.filePath(QStringLiteral("data/kernel-explorer/archive.kxdb"));
    qputenv("KX_ARCHIVE", QFile::encodeName(defaultPath));
    QCOMPARE(MainWindow::defaultArchivePath(), defaultPath);
    {
        MainWindow window;
        QVERIFY(window.openStartupArchive());
        QVERIFY(QFile::exists(defaultPath));
        QCOMPARE(window.session()->path(), defaultPath);
        QVERIFY(window.openArchive(m_samplePath));
    }
    {
        MainWindow window; // The last archive wins over the default one.
        QVERIFY(window.openStartupArchive());
        QCOMPARE(window.session()->path(), m_samplePath);
    }
    qunsetenv("KX_ARCHIVE");
}

void TestMainWindow::recentArchivesAndClose()
{
    const QString other = m_dir.filePath(QStringLiteral("recent.kxdb"));
    test::openWritable(other).reset();
    MainWindow window;
    openSample(window);
    QVERIFY(window.openArchive(other));
    QCOMPARE(window.recentArchives()->paths(), (QStringList{other, m_samplePath}));
    QCOMPARE(QSettings().value(QStringLiteral("lastArchive")).toString(), other);

    window.closeArchive();
    QVERIFY(!window.session()->isOpen());
    QCOMPARE(window.kernelsPage()->model()->rowCount(), 0);
    QCOMPARE(window.archiveStatus()->pathText(), QStringLiteral("No archive open"));
    QCOMPARE(window.candidateView()->candidateId(), QString());

    // A file that vanished leaves the recent list when opening it fails.
    QVERIFY(QFile::remove(other));
    ErrorLog errors;
    errors.attach(window);
    QVERIFY(!window.openArchive(other));
    QCOMPARE(window.recentArchives()->paths(), QStringList{m_samplePath});
}

void TestMainWindow::parentLinkSelectsParent()
{
    MainWindow window;
    openSample(window);
    QVERIFY(window.kernelsPage()->selectCandidate(q(m_sample.b)));
    QTRY_COMPARE(window.candidateView()->candidateId(), q(m_sample.b));
    emit window.candidateView()->candidateLinkActivated(q(m_sample.a));
    QCOMPARE(window.kernelsPage()->currentCandidateId(), q(m_sample.a));
    QTRY_COMPARE(window.candidateView()->candidateId(), q(m_sample.a));
}

void TestMainWindow::savesWindowState()
{
    {
        MainWindow window;
        window.show();
        window.close();
    }
    QSettings settings;
    QVERIFY(!settings.value(QStringLiteral("MainWindow/geometry")).toByteArray().isEmpty());
    QVERIFY(!settings.value(QStringLiteral("MainWindow/state")).toByteArray().isEmpty());
    QVERIFY(!settings.value(QStringLiteral("MainWindow/kernelsPage")).toByteArray().isEmpty());
}

void TestMainWindow::restoresWindowLayout()
{
    // Rearranged by hand: evaluations moved to the left, the source dock and the toolbar hidden.
    const QSize size(1500, 960); // Above the window's minimum size with all docks shown.
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.resize(size);
        QTRY_COMPARE(window.size(), size);
        auto *evaluations = window.findChild<QDockWidget *>(QStringLiteral("evaluationsDock"));
        QVERIFY(evaluations);
        window.addDockWidget(Qt::LeftDockWidgetArea, evaluations);
        window.findChild<QDockWidget *>(QStringLiteral("sourceDock"))->hide();
        window.findChild<QToolBar *>(QStringLiteral("mainToolBar"))->hide();
        window.close();
    }
    // The next start looks the same.
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTRY_COMPARE(window.size(), size);
    auto *evaluations = window.findChild<QDockWidget *>(QStringLiteral("evaluationsDock"));
    QCOMPARE(window.dockWidgetArea(evaluations), Qt::LeftDockWidgetArea);
    QVERIFY(evaluations->isVisible());
    QVERIFY(window.findChild<QDockWidget *>(QStringLiteral("sourceDock"))->isHidden());
    QVERIFY(window.findChild<QDockWidget *>(QStringLiteral("runDock"))->isVisible());
    QVERIFY(window.findChild<QToolBar *>(QStringLiteral("mainToolBar"))->isHidden());
}

QTEST_MAIN(TestMainWindow)
// Any two kernels: one marked (from the lineage or the table) and "Diff with Marked" on another, or two rows
// selected in the Kernels table; the Diff page opens on them. The diff's choosers filter as one types.
void TestMainWindow::anyTwoKernelsCanBeDiffed()
{
    MainWindow window;
    ErrorLog errors;
    errors.attach(window);
    window.show();
    openSample(window);
    auto *diff = window.findChild<DiffView *>();
    QVERIFY(diff);
    auto *pages = window.findChild<QTabWidget *>(QStringLiteral("pages"));
    const auto triggered = [](QMenu &menu, const char *name) {
        auto *action = menu.findChild<QAction *>(QLatin1String(name));
        if (!action || !action->isEnabled())
            return false;
        action->trigger();
        return true;
    };

    // Nothing marked: only marking is offered.
    KernelsPage *kernels = window.kernelsPage();
    {
        QMenu menu;
        kernels->fillContextMenu(menu, q(m_sample.a));
        QVERIFY(menu.findChild<QAction *>(QStringLiteral("diffWithMarked")));
        QVERIFY(!menu.findChild<QAction *>(QStringLiteral("diffWithMarked"))->isEnabled());
        QVERIFY(triggered(menu, "markForComparison"));
    }
    // Marked in the table, compared from the lineage's node menu.
    {
        QMenu menu;
        window.lineagePage()->fillNodeMenu(menu, q(m_sample.d));
        QVERIFY(menu.findChild<QAction *>(QStringLiteral("diffWithMarked"))->text().contains(q(m_sample.a).left(8)));
        QVERIFY(triggered(menu, "diffWithMarked"));
    }
    QCOMPARE(pages->currentWidget(), diff);
    QTRY_VERIFY(!diff->isLoading());
    QCOMPARE(diff->leftId(), q(m_sample.a));
    QCOMPARE(diff->rightId(), q(m_sample.d));

    // Two rows of the table: the other one on the left, the current one on the right.
    pages->setCurrentWidget(kernels);
    QVERIFY(kernels->selectCandidate(q(m_sample.b)));
    const QModelIndex e =
        kernels->proxy()->mapFromSource(kernels->model()->index(kernels->model()->rowOf(q(m_sample.e)), 0));
    kernels->view()->selectionModel()->setCurrentIndex(e, QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QCOMPARE(kernels->selectedCandidateIds(), (QStringList{q(m_sample.b), q(m_sample.e)}));
    {
        QMenu menu;
        kernels->fillContextMenu(menu, q(m_sample.e));
        QVERIFY(triggered(menu, "diffSelected"));
    }
    QCOMPARE(pages->currentWidget(), diff);
    QTRY_VERIFY(!diff->isLoading());
    QCOMPARE(diff->leftId(), q(m_sample.b));
    QCOMPARE(diff->rightId(), q(m_sample.e));

    // The choosers are searchable: typing part of an id or a description offers the matching kernels.
    auto *left = diff->findChild<QComboBox *>(QStringLiteral("leftCandidate"));
    QVERIFY(left && left->isEditable() && left->completer());
    QCOMPARE(left->completer()->filterMode(), Qt::MatchContains);
    left->completer()->setCompletionPrefix(q(m_sample.e).mid(2, 6).toUpper()); // any case
    QCOMPARE(left->completer()->completionCount(), 1);
    QVERIFY(errors.messages.isEmpty());
}

// Diff and Plots read nothing while their tab is not shown (a read per click cost 0.5 s at 30k kernels); shown,
// they catch up with the kernel selected meanwhile.
void TestMainWindow::hiddenPagesReadWhenShown()
{
    MainWindow window;
    ErrorLog errors;
    errors.attach(window);
    window.show();
    openSample(window);
    auto *pages = window.findChild<QTabWidget *>(QStringLiteral("pages"));
    auto *diff = window.findChild<DiffView *>();
    auto *plots = window.findChild<PlotsPage *>();
    QVERIFY(diff && plots);
    pages->setCurrentWidget(window.kernelsPage());
    QSignalSpy diffLoads(diff, &DiffView::loaded);
    QSignalSpy plotLoads(plots, &PlotsPage::loaded);
    for (const std::string &id : {m_sample.b, m_sample.c, m_sample.d}) {
        QVERIFY(window.kernelsPage()->selectCandidate(q(id)));
        QTRY_COMPARE(window.candidateView()->candidateId(), q(id));
        QVERIFY(!diff->isLoading());
        QVERIFY(!plots->isLoading());
    }
    QTest::qWait(50);
    QCOMPARE(diffLoads.count(), 0);
    QCOMPARE(plotLoads.count(), 0);

    pages->setCurrentWidget(diff);
    QTRY_COMPARE(diffLoads.count(), 1); // the last selection only
    QCOMPARE(diff->rightId(), q(m_sample.d));
    pages->setCurrentWidget(plots);
    QTRY_COMPARE(plotLoads.count(), 1);
    QVERIFY(errors.messages.isEmpty());
}

// File > Open Sample Archive: the shipped export of real GPU searches, imported once next to the default archive.
void TestMainWindow::opensTheSampleArchive()
{
    QVERIFY2(!SampleArchive::exportFile().isEmpty(), "the sample archive's export is not found");
    const QString folder = m_dir.filePath(QStringLiteral("sample-data"));
    qputenv("KX_ARCHIVE", QFile::encodeName(folder + QStringLiteral("/archive.kxdb")));
    const auto restore = qScopeGuard([] { qunsetenv("KX_ARCHIVE"); });
    QCOMPARE(SampleArchive::archivePath(), folder + QStringLiteral("/sample.kxdb"));

    MainWindow window;
    ErrorLog errors;
    errors.attach(window);
    window.show();
    window.findChild<QAction *>(QStringLiteral("openSampleAction"))->trigger();
    QVERIFY2(errors.messages.isEmpty(), qPrintable(errors.messages.join(QLatin1Char('\n'))));
    QCOMPARE(window.session()->path(), SampleArchive::archivePath());
    QTRY_VERIFY(window.kernelsPage()->model()->rowCount() > 100);
    QVERIFY(window.kernelsPage()->model()->opNames().contains(QStringLiteral("softmax")));
    const auto archive =
        Archive::open(QFile::encodeName(SampleArchive::archivePath()).toStdString(), ArchiveMode::ReadOnly);
    QVERIFY(archive);
    // Real cards of two models, not a fake worker; with verdicts and flagged kernels for the Review page.
    const auto gpus = (*archive)->gpuNames();
    const auto has = [&gpus](const char *model) {
        return std::any_of(gpus.begin(), gpus.end(),
                           [model](const std::string &name) { return name.find(model) != std::string::npos; });
    };
    QVERIFY(has("H100"));
    QVERIFY(has("H200"));
    QVERIFY((*archive)->info().verdicts >= 4);
    QVERIFY(!(*archive)->reviewQueue().empty());
    const auto modified = QFileInfo(SampleArchive::archivePath()).lastModified();
    QVERIFY(window.openSampleArchive()); // the second time it opens what is there
    QCOMPARE(QFileInfo(SampleArchive::archivePath()).lastModified(), modified);

    // Where the archive cannot be made, the reason is given and nothing is left behind.
    QFile blocker(m_dir.filePath(QStringLiteral("not-a-folder")));
    QVERIFY(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    qputenv("KX_ARCHIVE", QFile::encodeName(blocker.fileName() + QStringLiteral("/archive.kxdb")));
    QString error;
    QVERIFY(SampleArchive::prepare(&error).isEmpty());
    QVERIFY2(error.contains(QLatin1String("could not be made")), qPrintable(error));
}

#include "tst_mainwindow.moc"
