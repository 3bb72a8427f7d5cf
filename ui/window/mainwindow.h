#pragma once

#include "ui/common/archivesession.h"
#include "ui/window/errorreporter.h"

#include <QMainWindow>

class QDockWidget;
class QMenu;
class QTabWidget;
class QToolBar;

namespace kx::ui {

class ArchivePage;
class ArchiveStatusWidget;
class CandidateLoader;
class CandidateView;
class EvaluationsPanel;
class KernelsPage;
class LineagePage;
class RunPanel;
class SearchBridge;
class ComparisonMark;
class DiffView;
class PlotsPage;
class ReviewPage;
class VerdictController;
class KernelExporter;
class RecentArchives;
class ManualEdits;
class PyTorchImport;

/**
 * The application shell: assembles the pages (central tabs) and the docks around them, owns the open
 * archive and the menus. Each feature lives in its own page or dock class; this class only wires them.
 */
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    /// Opens an existing archive; on failure reports why and keeps the current one.
    bool openArchive(const QString &path, ArchiveSession::Access access = ArchiveSession::Access::Automatic);
    /// Creates and opens a new archive; refuses existing files.
    bool newArchive(const QString &path);
    /// Opens the last archive, or on first start the default one (created when missing).
    bool openStartupArchive();
    bool openDefaultArchive();
    /// The sample archive of real searches (imported on first use); false after reporting why not.
    bool openSampleArchive();
    void closeArchive();
    void reload();

    /// Where the archive lives when the user has not chosen one ($KX_ARCHIVE, else the per-user data
    /// folder; the same file the kx command line uses).
    static QString defaultArchivePath();

    /// Replaces the error message box (tests, self-test); an empty handler restores it.
    void setErrorHandler(ErrorReporter::Handler handler);

    /// Adds a page as a central tab (with the bundled icon iconName, if any), attached to the archive session;
    /// pages share the docks.
    void addPage(ArchivePage *page, const QString &title, const QString &iconName = {});
    /// Adds a dock and its toggle to the View menu.
    void addDock(QDockWidget *dock, Qt::DockWidgetArea area);

    ArchiveSession *session() const { return m_session; }
    RecentArchives *recentArchives() const { return m_recent; }
    KernelsPage *kernelsPage() const { return m_kernelsPage; }
    CandidateView *candidateView() const { return m_candidateView; }
    EvaluationsPanel *evaluationsPanel() const { return m_evaluationsPanel; }
    LineagePage *lineagePage() const { return m_lineagePage; }
    DiffView *diffView() const { return m_diffView; }
    PlotsPage *plotsPage() const { return m_plotsPage; }
    ReviewPage *reviewPage() const { return m_reviewPage; }
    VerdictController *verdicts() const { return m_verdicts; }
    /// The kernel that review and export act on: the review page's while it is shown, else the selection.
    QString reviewCandidateId() const;
    /// What A and R judge: the review page's selected rows where several are selected, else reviewCandidateId().
    QStringList reviewCandidateIds() const;
    /// Writes the accepted kernel as a folder under parentFolder (off the GUI thread for the reads).
    void exportKernel(const QString &candidateId, const QString &parentFolder);
    RunPanel *runPanel() const { return m_runPanel; }
    SearchBridge *searchBridge() const { return m_searchBridge; }
    /// File > Open Op: chooses the op the run controls search on.
    void openOp();
    ArchiveStatusWidget *archiveStatus() const { return m_archiveStatus; }
    /// "New candidate from this one" (Ctrl+E in the source view, the lineage's node menu).
    ManualEdits *manualEdits() const { return m_manualEdits; }

signals:
    /// The detail views now show this candidate (empty: nothing selected).
    void candidateShown(const QString &candidateId);
    /// An export finished: the folder written, or empty when it failed (the error was reported).
    void kernelExported(const QString &folder);

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createActions();
    void createMenus();
    void createDocks();
    void connectSearch();
    void createReviewParts();
    void connectManualEdits();
    void createPageShortcuts();
    void updateRecentMenu();
    void onArchiveChanged();
    void showCandidate(const QString &candidateId);
    void chooseAndOpen(ArchiveSession::Access access);
    void chooseAndCreate();
    void about();
    void restoreSettings();
    void saveSettings() const;
    QString dialogDirectory() const;

    ArchiveSession *m_session;
    RecentArchives *m_recent;
    ErrorReporter m_errors;
    CandidateLoader *m_loader;
    QTabWidget *m_pages;
    QList<ArchivePage *> m_archivePages; // In tab order.
    KernelsPage *m_kernelsPage;
    CandidateView *m_candidateView;
    EvaluationsPanel *m_evaluationsPanel;
    ArchiveStatusWidget *m_archiveStatus;
    SearchBridge *m_searchBridge;
    LineagePage *m_lineagePage;
    RunPanel *m_runPanel;
    QDockWidget *m_runDock = nullptr;
    QMenu *m_searchMenu = nullptr;
    DiffView *m_diffView = nullptr;
    ComparisonMark *m_comparisonMark = nullptr;
    PlotsPage *m_plotsPage = nullptr;
    ReviewPage *m_reviewPage = nullptr;
    VerdictController *m_verdicts = nullptr;
    KernelExporter *m_exporter = nullptr;
    ManualEdits *m_manualEdits = nullptr;
    QString m_shownCandidateId;
    std::int64_t m_shownRunId = 0; // The shown candidate's run (0: none).
    QAction *m_openOpAction = nullptr;
    PyTorchImport *m_pytorchImport = nullptr;
    QDockWidget *m_sourceDock = nullptr;
    QDockWidget *m_evaluationsDock = nullptr;
    QToolBar *m_toolBar = nullptr;
    QMenu *m_viewMenu = nullptr;
    QMenu *m_recentMenu = nullptr;
    QAction *m_newAction = nullptr;
    QAction *m_openAction = nullptr;
    QAction *m_openReadOnlyAction = nullptr;
    QAction *m_openSampleAction = nullptr;
    QAction *m_reloadAction = nullptr;
    QAction *m_closeAction = nullptr;
    QAction *m_quitAction = nullptr;
    QAction *m_filterAction = nullptr;
};

} // namespace kx::ui
