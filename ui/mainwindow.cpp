#include "ui/mainwindow.h"

#include "ui/archivestatuswidget.h"
#include "ui/candidateloader.h"
#include "ui/candidateview.h"
#include "ui/evaluationspanel.h"
#include "ui/kernelspage.h"
#include "ui/recentarchives.h"
#include "ui/uiresources.h"

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
#include <QMimeData>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>

#include <algorithm>

namespace kx::ui {

namespace {

const char kLastArchiveKey[] = "lastArchive";
const char kGeometryKey[] = "MainWindow/geometry";
const char kStateKey[] = "MainWindow/state";
const char kKernelsPageKey[] = "MainWindow/kernelsPage";
constexpr int kStateVersion = 1;

QString archiveFileFilter()
{
    return MainWindow::tr("Kernel archives (*.kxdb);;All files (*)");
}

/// The single local file of a drag, or an empty string.
QString droppedFile(const QMimeData *mime)
{
    if (!mime || !mime->hasUrls() || mime->urls().size() != 1 || !mime->urls().first().isLocalFile())
        return {};
    return mime->urls().first().toLocalFile();
}

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
    addPage(m_kernelsPage, tr("Kernels"));

    createActions();
    createMenus();
    createDocks();
    statusBar()->addPermanentWidget(m_archiveStatus);

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
    m_newAction = new QAction(themedIcon(QStringLiteral("document-new")), tr("&New Archive…"), this);
    m_newAction->setShortcut(QKeySequence::New);
    m_newAction->setToolTip(tr("Create an empty archive"));
    connect(m_newAction, &QAction::triggered, this, &MainWindow::chooseAndCreate);

    m_openAction = new QAction(themedIcon(QStringLiteral("document-open")), tr("&Open Archive…"), this);
    m_openAction->setShortcut(QKeySequence::Open);
    m_openAction->setToolTip(tr("Open an archive"));
    connect(m_openAction, &QAction::triggered, this, [this] { chooseAndOpen(ArchiveSession::Access::Automatic); });

    m_openReadOnlyAction = new QAction(tr("Open Archive &Read-Only…"), this);
    m_openReadOnlyAction->setToolTip(tr("Open an archive for browsing without changing it"));
    connect(m_openReadOnlyAction, &QAction::triggered, this,
            [this] { chooseAndOpen(ArchiveSession::Access::ReadOnly); });

    m_reloadAction = new QAction(themedIcon(QStringLiteral("view-refresh")), tr("&Reload"), this);
    m_reloadAction->setShortcut(QKeySequence::Refresh);
    m_reloadAction->setToolTip(tr("Read the archive again"));
    connect(m_reloadAction, &QAction::triggered, this, &MainWindow::reload);

    m_closeAction = new QAction(tr("&Close Archive"), this);
    m_closeAction->setShortcut(QKeySequence::Close);
    connect(m_closeAction, &QAction::triggered, this, &MainWindow::closeArchive);

    m_quitAction = new QAction(tr("&Quit"), this);
    m_quitAction->setShortcut(QKeySequence::Quit);
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    m_filterAction = new QAction(tr("&Filter Kernels"), this);
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

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    m_viewMenu->addAction(m_toolBar->toggleViewAction());
    m_viewMenu->addSeparator();
    m_viewMenu->addAction(m_filterAction);

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
}

void MainWindow::addPage(QWidget *page, const QString &title)
{
    m_pages->addTab(page, title);
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
    m_kernelsPage->reload();
    m_archiveStatus->refresh();
    showCandidate(m_kernelsPage->currentCandidateId());
}

void MainWindow::onArchiveChanged()
{
    const QString path = m_session->path();
    const bool open = m_session->isOpen();
    setWindowFilePath(open ? path : QString());
    setWindowTitle(open ? QString() : QApplication::applicationDisplayName());
    m_archiveStatus->setArchive(path, m_session->isReadOnly());
    m_reloadAction->setEnabled(open);
    m_closeAction->setEnabled(open);
    m_loader->clear();
    m_kernelsPage->setArchivePath(path);
    if (open) {
        m_recent->add(path);
        QSettings().setValue(QLatin1String(kLastArchiveKey), path);
        statusBar()->showMessage(m_session->isReadOnly() ? tr("Opened %1 read-only.").arg(QDir::toNativeSeparators(path))
                                                         : tr("Opened %1.").arg(QDir::toNativeSeparators(path)),
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
    m_recentMenu->clear();
    const QStringList paths = m_recent->paths();
    for (int i = 0; i < paths.size(); ++i) {
        const QString &path = paths.at(i);
        const QString label = QStringLiteral("&%1  %2").arg(i + 1 < 10 ? QString::number(i + 1) : QString(),
                                                           QDir::toNativeSeparators(path));
        QAction *action = m_recentMenu->addAction(label, this, [this, path] { openArchive(path); });
        action->setToolTip(path);
    }
    if (!paths.isEmpty())
        m_recentMenu->addSeparator();
    QAction *clear = m_recentMenu->addAction(tr("&Clear List"), m_recent, &RecentArchives::clear);
    clear->setEnabled(!paths.isEmpty());
}

QString MainWindow::dialogDirectory() const
{
    if (m_session->isOpen())
        return QFileInfo(m_session->path()).absolutePath();
    return QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
}

void MainWindow::chooseAndOpen(ArchiveSession::Access access)
{
    const QString title = access == ArchiveSession::Access::ReadOnly ? tr("Open Archive Read-Only")
                                                                     : tr("Open Archive");
    const QString path = QFileDialog::getOpenFileName(this, title, dialogDirectory(), archiveFileFilter());
    if (!path.isEmpty())
        openArchive(path, access);
}

void MainWindow::chooseAndCreate()
{
    QString path = QFileDialog::getSaveFileName(this, tr("New Archive"), dialogDirectory(), archiveFileFilter(),
                                                nullptr, QFileDialog::DontConfirmOverwrite);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".kxdb");
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
    if (!droppedFile(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QString path = droppedFile(event->mimeData());
    if (path.isEmpty())
        return;
    event->acceptProposedAction();
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
