#include "ui/window/mainwindow.h"

#include "ui/common/comparisonmark.h"
#include "ui/common/format.h"
#include "ui/common/uiresources.h"
#include "ui/diff/diffview.h"
#include "ui/kernels/candidateloader.h"
#include "ui/kernels/candidateview.h"
#include "ui/kernels/evaluationspanel.h"
#include "ui/kernels/kernelexporter.h"
#include "ui/kernels/kernelspage.h"
#include "ui/kernels/manualedits.h"
#include "ui/lineage/lineagepage.h"
#include "ui/plots/plotspage.h"
#include "ui/review/reviewpage.h"
#include "ui/review/verdictcontroller.h"
#include "ui/search/runpanel.h"
#include "ui/search/searchbridge.h"
#include "ui/window/archivedialogs.h"
#include "ui/window/archivestatuswidget.h"
#include "ui/window/opendialog.h"
#include "ui/window/pytorchimport.h"
#include "ui/window/recentarchives.h"
#include "ui/window/samplearchive.h"

#include "core/archive/archivelocation.h"
#include "core/version.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QUndoStack>

#include <algorithm>
#include <utility>

namespace kx::ui {

namespace {

const char kLastArchiveKey[] = "lastArchive";
const char kGeometryKey[] = "MainWindow/geometry";
const char kStateKey[] = "MainWindow/state";
const char kKernelsPageKey[] = "MainWindow/kernelsPage";
constexpr int kStateVersion = 1;

} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_session(new ArchiveSession(this))
    , m_recent(new RecentArchives(this))
    , m_errors(this)
    , m_loader(new CandidateLoader(this))
    , m_pages(new QTabWidget(this))
    , m_kernelsPage(new KernelsPage(this))
    , m_candidateView(new CandidateView(this))
    , m_evaluationsPanel(new EvaluationsPanel(this))
    , m_archiveStatus(new ArchiveStatusWidget(this))
    , m_searchBridge(new SearchBridge(this))
    , m_lineagePage(new LineagePage(this))
    , m_runPanel(new RunPanel(m_searchBridge, this))
{
    initResources();
    setWindowIcon(appIcon());
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);

    m_pages->setObjectName(QStringLiteral("pages"));
    m_pages->setDocumentMode(true);
    m_pages->setTabBarAutoHide(true);
    setCentralWidget(m_pages);
    addPage(m_kernelsPage, tr("Kernels"), QStringLiteral("page-kernels"));
    addPage(m_lineagePage, tr("Lineage"), QStringLiteral("page-lineage"));

    createActions();
    createMenus();
    createDocks();
    statusBar()->addPermanentWidget(m_archiveStatus);
    m_archiveStatus->attach(m_session);
    connectSearch();
    createReviewParts();
    connectManualEdits();
    createPageShortcuts();

    connect(m_session, &ArchiveSession::archiveChanged, this, &MainWindow::onArchiveChanged);
    connect(m_recent, &RecentArchives::changed, this, &MainWindow::updateRecentMenu);
    connect(m_kernelsPage, &KernelsPage::currentCandidateChanged, this, &MainWindow::showCandidate);
    connect(m_kernelsPage, &KernelsPage::loadFailed, this, [this](const QString &message) {
        statusBar()->showMessage(tr("The kernels could not be read: %1").arg(message));
    });
    connect(m_candidateView, &CandidateView::candidateLinkActivated, this, [this](const QString &id) {
        if (!m_kernelsPage->selectCandidate(id))
            statusBar()->showMessage(tr("Candidate %1 is not in the kernels table.").arg(id.left(12)), 5000);
    });
    connect(m_loader, &CandidateLoader::loaded, this, [this](const CandidateDetails &details) {
        m_shownRunId = details.candidate.runId.value_or(0);
        m_candidateView->showDetails(details);
        m_evaluationsPanel->showDetails(details);
        emit candidateShown(QString::fromStdString(details.candidate.id));
    });
    connect(m_loader, &CandidateLoader::failed, this, [this](const QString &, const QString &message) {
        m_candidateView->showMessage(message);
        m_evaluationsPanel->showMessage(message);
    });
    connect(m_loader, &CandidateLoader::cleared, this, [this] {
        m_candidateView->clear();
        m_evaluationsPanel->clear();
        emit candidateShown({});
    });

    updateRecentMenu();
    onArchiveChanged();
    restoreSettings();
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions()
{
    m_newAction = new QAction(icon(QStringLiteral("document-new")), tr("&New Archive…"), this);
    m_newAction->setObjectName(QStringLiteral("newArchiveAction"));
    m_newAction->setShortcut(QKeySequence::New);
    m_newAction->setToolTip(tr("Create an empty archive"));
    connect(m_newAction, &QAction::triggered, this, &MainWindow::chooseAndCreate);

    m_openAction = new QAction(icon(QStringLiteral("document-open")), tr("&Open Archive…"), this);
    m_openAction->setObjectName(QStringLiteral("openArchiveAction"));
    m_openAction->setShortcut(QKeySequence::Open);
    m_openAction->setToolTip(tr("Open an archive"));
    connect(m_openAction, &QAction::triggered, this, [this] { chooseAndOpen(ArchiveSession::Access::Automatic); });

    m_openReadOnlyAction = new QAction(tr("Open Archive &Read-Only…"), this);
    m_openReadOnlyAction->setToolTip(tr("Open an archive for browsing without changing it"));
    connect(m_openReadOnlyAction, &QAction::triggered, this,
            [this] { chooseAndOpen(ArchiveSession::Access::ReadOnly); });

    m_openSampleAction = new QAction(tr("Open &Sample Archive"), this);
    m_openSampleAction->setObjectName(QStringLiteral("openSampleAction"));
    m_openSampleAction->setToolTip(tr("Real searches on H200 GPUs to explore: lineages, speedups per GPU, diffs"));
    connect(m_openSampleAction, &QAction::triggered, this, &MainWindow::openSampleArchive);

    m_reloadAction = new QAction(icon(QStringLiteral("view-refresh")), tr("&Reload"), this);
    m_reloadAction->setObjectName(QStringLiteral("reloadAction"));
    // F5 only: Refresh also means Ctrl+R on some desktops, and Ctrl+R starts a search.
    m_reloadAction->setShortcut(QKeySequence(Qt::Key_F5));
    m_reloadAction->setToolTip(tr("Read the archive again"));
    connect(m_reloadAction, &QAction::triggered, this, &MainWindow::reload);

    m_closeAction = new QAction(tr("&Close Archive"), this);
    m_closeAction->setShortcut(QKeySequence::Close);
    connect(m_closeAction, &QAction::triggered, this, &MainWindow::closeArchive);

    m_quitAction = new QAction(tr("&Quit"), this);
    m_quitAction->setShortcut(QKeySequence::Quit);
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    m_openOpAction = new QAction(icon(QStringLiteral("op-open")), tr("Open O&p…"), this);
    m_openOpAction->setObjectName(QStringLiteral("openOpAction"));
    m_openOpAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    m_openOpAction->setToolTip(tr("Choose an op to search on"));
    connect(m_openOpAction, &QAction::triggered, this, &MainWindow::openOp);

    // An imported problem file opens like an op chosen in the open-op dialog.
    m_pytorchImport = new PyTorchImport(this);
    connect(m_pytorchImport, &PyTorchImport::imported, this, [this](const Op &op) {
        m_runPanel->setOp(op);
        m_runDock->show();
        m_runDock->raise();
    });

    m_filterAction = new QAction(icon(QStringLiteral("edit-find")), tr("&Filter Kernels"), this);
    m_filterAction->setObjectName(QStringLiteral("filterAction"));
    m_filterAction->setShortcut(QKeySequence::Find);
    connect(m_filterAction, &QAction::triggered, this, [this] {
        m_pages->setCurrentWidget(m_kernelsPage);
        m_kernelsPage->focusFilter();
    });
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_newAction);
    file->addAction(m_openAction);
    file->addAction(m_openReadOnlyAction);
    file->addAction(m_openSampleAction);
    file->addAction(m_openOpAction);
    file->addAction(m_pytorchImport->action());
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addSeparator();
    file->addAction(m_reloadAction);
    file->addAction(m_closeAction);
    file->addSeparator();
    file->addAction(m_quitAction);

    m_toolBar = addToolBar(tr("Main Toolbar"));
    m_toolBar->setObjectName(QStringLiteral("mainToolBar"));
    m_toolBar->setMovable(false);
    m_toolBar->addAction(m_newAction);
    m_toolBar->addAction(m_openAction);
    m_toolBar->addAction(m_reloadAction);
    m_toolBar->addSeparator();
    m_toolBar->addAction(m_openOpAction);
    m_toolBar->addAction(m_pytorchImport->action());
    m_toolBar->addSeparator();
    for (QAction *action :
         {m_runPanel->startAction(), m_runPanel->pauseAction(), m_runPanel->resumeAction(), m_runPanel->stopAction()})
        m_toolBar->addAction(action);

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    m_viewMenu->addAction(m_toolBar->toggleViewAction());
    m_viewMenu->addSeparator();
    m_viewMenu->addAction(m_filterAction);
    m_viewMenu->addSeparator();
    m_viewMenu->addActions(m_lineagePage->pageActions());

    m_searchMenu = menuBar()->addMenu(tr("&Search"));
    for (QAction *action : {m_runPanel->startAction(), m_runPanel->pauseAction(), m_runPanel->resumeAction(),
                            m_runPanel->stopAction(), m_runPanel->continueAction()})
        m_searchMenu->addAction(action);
    m_searchMenu->addSeparator();
    m_searchMenu->addAction(m_runPanel->proposerSettingsAction());

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *aboutAction = help->addAction(tr("&About Kernel Explorer"), this, &MainWindow::about);
    aboutAction->setMenuRole(QAction::AboutRole);
    QAction *aboutQt = help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
    aboutQt->setMenuRole(QAction::AboutQtRole);
}

void MainWindow::createDocks()
{
    m_sourceDock = new QDockWidget(tr("Source"), this);
    m_sourceDock->setObjectName(QStringLiteral("sourceDock"));
    m_sourceDock->setWidget(m_candidateView);
    addDock(m_sourceDock, Qt::BottomDockWidgetArea);

    m_evaluationsDock = new QDockWidget(tr("Evaluations"), this);
    m_evaluationsDock->setObjectName(QStringLiteral("evaluationsDock"));
    m_evaluationsDock->setWidget(m_evaluationsPanel);
    addDock(m_evaluationsDock, Qt::RightDockWidgetArea);

    m_runDock = new QDockWidget(tr("Run Controls"), this);
    m_runDock->setObjectName(QStringLiteral("runDock"));
    m_runDock->setWidget(m_runPanel);
    addDock(m_runDock, Qt::LeftDockWidgetArea);
}

void MainWindow::connectSearch()
{
    connect(m_runPanel, &RunPanel::chooseOpRequested, this, &MainWindow::openOp);
    connect(m_lineagePage, &LineagePage::runChanged, m_runPanel, &RunPanel::setSelectedRun);
    connect(m_lineagePage, &LineagePage::currentCandidateChanged, this, [this](const QString &id) {
        if (!m_kernelsPage->selectCandidate(id))
            showCandidate(id); // A live candidate the kernels table has not read yet.
    });
    connect(m_searchBridge, &SearchBridge::started, this, [this](qint64 runId) {
        m_lineagePage->showRun(runId);
        m_lineagePage->reloadRuns();
        m_pages->setCurrentWidget(m_lineagePage);
    });
    connect(m_searchBridge, &SearchBridge::candidateProposed, m_lineagePage, &LineagePage::addCandidate);
    connect(m_searchBridge, &SearchBridge::candidateEvaluated, m_lineagePage,
            [this](const Candidate &, const Evaluation &evaluation) { m_lineagePage->addEvaluation(evaluation); });
    connect(m_searchBridge, &SearchBridge::finished, this, &MainWindow::reload);
}

void MainWindow::createReviewParts()
{
    m_diffView = new DiffView(this);
    m_plotsPage = new PlotsPage(this);
    m_reviewPage = new ReviewPage(this);
    m_verdicts = new VerdictController(m_session, this);
    addPage(m_diffView, tr("Diff"), QStringLiteral("view-diff"));
    addPage(m_plotsPage, tr("Plots"), QStringLiteral("page-plots"));
    addPage(m_reviewPage, tr("Review"), QStringLiteral("page-review"));

    connect(this, &MainWindow::candidateShown, this, [this](const QString &id) {
        m_shownCandidateId = id;
        for (ArchivePage *page : std::as_const(m_archivePages))
            page->showCandidate(id);
    });
    // Hidden, they read nothing; shown, they catch up with the selection.
    m_diffView->setDeferredWhileHidden(true);
    m_plotsPage->setDeferredWhileHidden(true);
    // Any two kernels: marked in one place and compared from another, or two rows of the Kernels table.
    m_comparisonMark = new ComparisonMark(this);
    m_lineagePage->setComparisonMark(m_comparisonMark);
    m_kernelsPage->setComparisonMark(m_comparisonMark);
    const auto showDiff = [this](const QString &left, const QString &right) {
        m_diffView->compare(left, right);
        m_pages->setCurrentWidget(m_diffView);
    };
    connect(m_lineagePage, &LineagePage::diffRequested, this, showDiff);
    connect(m_kernelsPage, &KernelsPage::diffRequested, this, showDiff);
    connect(m_reviewPage, &ReviewPage::reviewRequested, m_verdicts, &VerdictController::review);
    connect(m_reviewPage, &ReviewPage::batchReviewRequested, m_verdicts, &VerdictController::reviewMany);
    connect(m_reviewPage, &ReviewPage::currentCandidateChanged, this, [this](const QString &id) {
        if (!id.isEmpty() && m_pages->currentWidget() == m_reviewPage)
            showCandidate(id);
    });
    // The queue may have chosen its kernel while another page was shown: on the Review page the docks show
    // the queue's kernel, the one A and R judge.
    connect(m_pages, &QTabWidget::currentChanged, this, [this] {
        const QString id = m_reviewPage->currentCandidateId();
        if (m_pages->currentWidget() == m_reviewPage && !id.isEmpty() && id != m_shownCandidateId)
            showCandidate(id);
        // The lineage opens on the run of the kernel shown, not on "No run".
        if (m_pages->currentWidget() == m_lineagePage && m_lineagePage->runId() == 0 && m_shownRunId > 0) {
            m_lineagePage->showRun(m_shownRunId);
            m_lineagePage->showCandidate(m_shownCandidateId);
        }
    });
    connect(m_verdicts, &VerdictController::errorOccurred, this,
            [this](const QString &message) { m_errors.report(tr("Verdict"), message); });
    // The pages read their badges and queues again themselves; the docks' details are the window's.
    connect(m_session, &ArchiveSession::verdictsChanged, this, [this](const QString &candidateId) {
        if (candidateId == m_shownCandidateId)
            showCandidate(candidateId);
    });

    m_exporter = new KernelExporter(this);
    connect(m_exporter, &KernelExporter::exported, this, [this](const QString &folder) {
        statusBar()->showMessage(tr("Exported to %1.").arg(QDir::toNativeSeparators(folder)), 8000);
        emit kernelExported(folder);
    });
    connect(m_exporter, &KernelExporter::failed, this, [this](const QString &message) {
        m_errors.report(tr("Export Kernel"), message);
        emit kernelExported({});
    });

    QMenu *edit = new QMenu(tr("&Edit"), this);
    QAction *undo = m_verdicts->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setObjectName(QStringLiteral("undoAction"));
    undo->setIcon(icon(QStringLiteral("edit-undo")));
    undo->setShortcut(QKeySequence::Undo);
    QAction *redo = m_verdicts->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setObjectName(QStringLiteral("redoAction"));
    redo->setIcon(icon(QStringLiteral("edit-redo")));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    menuBar()->insertMenu(m_viewMenu->menuAction(), edit);

    QMenu *review = new QMenu(tr("&Review"), this);
    QAction *accept =
        review->addAction(tr("&Accept Kernel…"), this, [this] { m_verdicts->reviewMany(reviewCandidateIds(), true); });
    accept->setShortcut(QKeySequence(Qt::Key_A));
    accept->setObjectName(QStringLiteral("acceptAction"));
    accept->setIcon(icon(QStringLiteral("kernel-accept")));
    QAction *reject =
        review->addAction(tr("&Reject Kernel…"), this, [this] { m_verdicts->reviewMany(reviewCandidateIds(), false); });
    reject->setShortcut(QKeySequence(Qt::Key_R));
    reject->setObjectName(QStringLiteral("rejectAction"));
    reject->setIcon(icon(QStringLiteral("kernel-reject")));
    review->addAction(m_candidateView->newCandidateAction());
    review->addSeparator();
    review->addActions(m_diffView->pageActions());
    review->addSeparator();
    QAction *exportAction = review->addAction(tr("&Export Kernel…"), this, [this] {
        const QString id = reviewCandidateId();
        if (id.isEmpty())
            return;
        const QString folder = QFileDialog::getExistingDirectory(this, tr("Export Kernel To"), dialogDirectory());
        if (!folder.isEmpty())
            exportKernel(id, folder);
    });
    exportAction->setObjectName(QStringLiteral("exportKernelAction"));
    exportAction->setIcon(icon(QStringLiteral("kernel-export")));
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    review->addActions(m_plotsPage->pageActions());
    menuBar()->insertMenu(m_viewMenu->menuAction(), review);
}

void MainWindow::connectManualEdits()
{
    m_manualEdits = new ManualEdits(m_session, m_searchBridge, this);
    connect(m_candidateView, &CandidateView::newCandidateRequested, m_manualEdits, &ManualEdits::open);
    connect(m_lineagePage, &LineagePage::newCandidateRequested, m_manualEdits, &ManualEdits::open);
    connect(m_lineagePage, &LineagePage::reviewRequested, m_verdicts, &VerdictController::review);
    connect(m_lineagePage, &LineagePage::openInKernelsRequested, this, [this](const QString &id) {
        m_pages->setCurrentWidget(m_kernelsPage);
        if (!m_kernelsPage->selectCandidate(id))
            statusBar()->showMessage(tr("Candidate %1 is not in the kernels table.").arg(id.left(12)), 5000);
    });
    connect(m_evaluationsPanel, &EvaluationsPanel::currentEvaluationChanged, m_candidateView,
            &CandidateView::selectEvaluation);
    connect(m_manualEdits, &ManualEdits::evaluated, this,
            [this](const Candidate &candidate, const Evaluation &evaluation) {
                m_lineagePage->addEvaluation(evaluation);
                m_kernelsPage->reload();
                if (QString::fromStdString(candidate.id) == m_shownCandidateId)
                    showCandidate(m_shownCandidateId);
            });
    connect(m_manualEdits, &ManualEdits::message, this,
            [this](const QString &text) { statusBar()->showMessage(text); });
    connect(m_manualEdits, &ManualEdits::errorOccurred, this,
            [this](const QString &message) { m_errors.report(tr("New Candidate"), message); });
}

void MainWindow::createPageShortcuts()
{
    // Ctrl+1 ... Ctrl+9 show the pages in tab order.
    m_viewMenu->addSeparator();
    for (int i = 0; i < std::min(m_pages->count(), 9); ++i) {
        QWidget *page = m_pages->widget(i);
        QAction *action = m_viewMenu->addAction(m_pages->tabIcon(i), tr("Show %1").arg(m_pages->tabText(i)), this,
                                                [this, page] { m_pages->setCurrentWidget(page); });
        action->setObjectName(QStringLiteral("showPage%1Action").arg(i + 1));
        action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
    }
}

QString MainWindow::reviewCandidateId() const
{
    if (m_pages->currentWidget() == m_reviewPage && !m_reviewPage->currentCandidateId().isEmpty())
        return m_reviewPage->currentCandidateId();
    return m_shownCandidateId;
}

QStringList MainWindow::reviewCandidateIds() const
{
    if (m_pages->currentWidget() == m_reviewPage && m_reviewPage->selectedCandidateIds().size() > 1)
        return m_reviewPage->selectedCandidateIds();
    const QString id = reviewCandidateId();
    return id.isEmpty() ? QStringList() : QStringList{id};
}

void MainWindow::exportKernel(const QString &candidateId, const QString &parentFolder)
{
    if (m_session->isOpen())
        m_exporter->exportKernel(m_session->path(), candidateId, parentFolder);
}

void MainWindow::openOp()
{
    OpenDialog dialog(m_session->path(), this);
    if (m_runPanel->op())
        dialog.selectOp(QString::fromStdString(m_runPanel->op()->name));
    if (dialog.exec() != QDialog::Accepted)
        return;
    m_runPanel->setOp(dialog.selectedOp());
    m_runDock->show();
    m_runDock->raise();
    if (const std::int64_t runId = dialog.selectedRunId(); runId > 0) {
        m_lineagePage->showRun(runId);
        m_pages->setCurrentWidget(m_lineagePage);
    }
}

void MainWindow::addPage(ArchivePage *page, const QString &title, const QString &iconName)
{
    page->attach(m_session);
    m_archivePages.append(page);
    m_pages->addTab(page, iconName.isEmpty() ? QIcon() : icon(iconName), title);
}

void MainWindow::addDock(QDockWidget *dock, Qt::DockWidgetArea area)
{
    addDockWidget(area, dock);
    // Dock toggles go above the separator that precedes the non-dock entries.
    const QList<QAction *> actions = m_viewMenu->actions();
    const auto separator = std::find_if(actions.begin(), actions.end(), [](QAction *a) { return a->isSeparator(); });
    m_viewMenu->insertAction(separator == actions.end() ? nullptr : *separator, dock->toggleViewAction());
}

void MainWindow::setErrorHandler(ErrorReporter::Handler handler)
{
    m_errors.setHandler(std::move(handler));
}

QString MainWindow::defaultArchivePath()
{
    // Shared with the kx command line, so that what a search writes is what the window shows.
    return QString::fromStdString(kx::defaultArchivePath());
}

bool MainWindow::openArchive(const QString &path, ArchiveSession::Access access)
{
    QString error;
    if (!m_session->open(path, access, &error)) {
        if (!QFileInfo::exists(path))
            m_recent->remove(path);
        m_errors.report(tr("Open Archive"), error);
        return false;
    }
    return true;
}

bool MainWindow::newArchive(const QString &path)
{
    QString error;
    if (!m_session->create(path, &error)) {
        m_errors.report(tr("New Archive"), error);
        return false;
    }
    return true;
}

bool MainWindow::openStartupArchive()
{
    const QString last = QSettings().value(QLatin1String(kLastArchiveKey)).toString();
    if (!last.isEmpty() && QFileInfo::exists(last))
        return openArchive(last);
    return openDefaultArchive();
}

bool MainWindow::openSampleArchive()
{
    QString error;
    QApplication::setOverrideCursor(Qt::WaitCursor); // the first time, an import of a few hundred milliseconds
    const QString path = SampleArchive::prepare(&error);
    QApplication::restoreOverrideCursor();
    if (path.isEmpty()) {
        m_errors.report(tr("Open Sample Archive"), error);
        return false;
    }
    return openArchive(path);
}

bool MainWindow::openDefaultArchive()
{
    QString error;
    if (!m_session->openOrCreate(defaultArchivePath(), &error)) {
        m_errors.report(tr("Open Archive"), error);
        return false;
    }
    return true;
}

void MainWindow::closeArchive()
{
    m_session->close();
}

void MainWindow::reload()
{
    if (!m_session->isOpen())
        return;
    for (ArchivePage *page : std::as_const(m_archivePages))
        page->reload();
    m_archiveStatus->refresh();
    showCandidate(m_kernelsPage->currentCandidateId());
}

void MainWindow::onArchiveChanged()
{
    const QString path = m_session->path();
    const bool open = m_session->isOpen();
    setWindowFilePath(open ? path : QString());
    setWindowTitle(open ? QString() : QApplication::applicationDisplayName());
    m_reloadAction->setEnabled(open);
    m_closeAction->setEnabled(open);
    m_loader->clear();
    m_searchBridge->setArchive(m_session->ref());
    m_comparisonMark->clear();
    if (open) {
        m_recent->add(path);
        QSettings().setValue(QLatin1String(kLastArchiveKey), path);
        statusBar()->showMessage(m_session->isReadOnly() ? tr("Opened %1 read-only.").arg(Format::path(path))
                                                         : tr("Opened %1.").arg(Format::path(path)),
                                 5000);
    }
}

void MainWindow::showCandidate(const QString &candidateId)
{
    if (candidateId.isEmpty() || !m_session->isOpen())
        m_loader->clear();
    else
        m_loader->load(m_session->path(), candidateId);
}

void MainWindow::updateRecentMenu()
{
    m_recent->fillMenu(m_recentMenu, [this](const QString &path) { openArchive(path); });
}

QString MainWindow::dialogDirectory() const
{
    if (m_session->isOpen())
        return QFileInfo(m_session->path()).absolutePath();
    return QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
}

void MainWindow::chooseAndOpen(ArchiveSession::Access access)
{
    const QString title =
        access == ArchiveSession::Access::ReadOnly ? tr("Open Archive Read-Only") : tr("Open Archive");
    if (const QString path = ArchiveDialogs::askToOpen(this, title, dialogDirectory()); !path.isEmpty())
        openArchive(path, access);
}

void MainWindow::chooseAndCreate()
{
    if (const QString path = ArchiveDialogs::askForNew(this, dialogDirectory()); !path.isEmpty())
        newArchive(path);
}

void MainWindow::about()
{
    QMessageBox::about(this, tr("About Kernel Explorer"),
                       tr("<h3>Kernel Explorer %1</h3>"
                          "<p>Turns PyTorch ops into fast, verified CUDA kernels by evolutionary search, and keeps "
                          "every kernel it evaluated in an archive you can browse offline.</p>")
                           .arg(QString::fromLatin1(kx::kVersion)));
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    saveSettings();
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (!ArchiveDialogs::droppedFile(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QString path = ArchiveDialogs::droppedFile(event->mimeData());
    if (path.isEmpty())
        return;
    event->acceptProposedAction();
    if (PyTorchImport::isProblemFile(path)) {
        m_pytorchImport->importFile(path);
        return;
    }
    openArchive(path);
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    const QByteArray geometry = settings.value(QLatin1String(kGeometryKey)).toByteArray();
    if (geometry.isEmpty() || !restoreGeometry(geometry))
        resize(1280, 800);
    if (!restoreState(settings.value(QLatin1String(kStateKey)).toByteArray(), kStateVersion)) {
        // First start: room for the evaluation details beside the table and for the source below it.
        resizeDocks({m_evaluationsDock}, {460}, Qt::Horizontal);
        resizeDocks({m_sourceDock}, {340}, Qt::Vertical);
    }
    m_kernelsPage->restoreState(settings.value(QLatin1String(kKernelsPageKey)).toByteArray());
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(QLatin1String(kGeometryKey), saveGeometry());
    settings.setValue(QLatin1String(kStateKey), saveState(kStateVersion));
    settings.setValue(QLatin1String(kKernelsPageKey), m_kernelsPage->saveState());
}

} // namespace kx::ui
