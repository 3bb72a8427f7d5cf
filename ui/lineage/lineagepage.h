#pragma once

#include "ui/common/archivepage.h"
#include "ui/common/latestjob.h"
#include "ui/lineage/lineagegraph.h"

#include "core/domain/run.h"

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QTimer;

namespace kx {
struct Candidate;
struct Evaluation;
} // namespace kx

class QMenu;

namespace kx::ui {

class ComparisonMark;
class LineageOverview;
class LineageScene;
class LineageView;

/**
 * The lineage page: the candidates of one run as a tree growing down by generation, coloured by outcome and
 * speedup on the chosen GPU. Reads the run off the GUI thread, grows live from the search's events, and
 * lays out off the GUI thread too (a newer layout request makes older results stale; they are dropped).
 */
class LineagePage : public ArchivePage
{
    Q_OBJECT

public:
    /// How many of the fastest kernels the elite view follows back to the roots.
    static constexpr int kEliteSize = 10;

    explicit LineagePage(QWidget *parent = nullptr);
    ~LineagePage() override;

    /// The archive to read runs from (an empty handle: nothing to show).
    void setArchive(const ArchiveRef &archive) override;
    /// Reads the list of runs again (after a search started or finished).
    void reloadRuns();
    void reload() override { reloadRuns(); }
    /// Selects the candidate's node when it is in the lineage shown; a node not laid out yet is selected
    /// once the next layout is applied.
    void showCandidate(const QString &candidateId) override;
    /// The zoom actions.
    QList<QAction *> pageActions() const override { return zoomActions(); }
    /// Shows a run: reads its lineage from the archive, and keeps adding live events of that run.
    void showRun(std::int64_t runId);
    std::int64_t runId() const { return m_runId; }

    /// Live events from the search (ignored unless they belong to the shown run).
    void addCandidate(const kx::Candidate &candidate, int generation);
    void addEvaluation(const kx::Evaluation &evaluation);
    /// Reads the run's current verdicts again (after one was recorded or retracted) and updates the badges.
    void refreshVerdicts();

    /// Selects the candidate's node (false when it is not in this lineage); does not emit.
    bool selectCandidate(const QString &candidateId);
    /// The actions of a node's context menu (new candidate, accept, reject, open in Kernels, copy id).
    void fillNodeMenu(QMenu &menu, const QString &candidateId);
    /// The window's comparison mark, offered in the node menu (not owned).
    void setComparisonMark(ComparisonMark *mark) { m_mark = mark; }
    QString currentCandidateId() const;

    void setGpu(const QString &gpu);
    QString gpu() const;
    void setSearchText(const QString &text);
    /// Selects the next search hit; false when there is none.
    bool selectNextMatch();
    QVector<int> matches() const { return m_matches; }
    void setShowPathToBest(bool show);
    QVector<int> pathToBest() const;
    void setCollapseFailed(bool collapse);
    /// Failures of one parent and generation as one node (see LineageGraph::failureGroups).
    void setGroupFailures(bool group);
    void navigate(int direction); ///< A LineageView::Direction.
    void focusSearch();
    /// Zoom in, zoom out and fit, for the View menu (their shortcuts act while the page has the focus).
    QList<QAction *> zoomActions() const { return {m_zoomInAction, m_zoomOutAction, m_fitAction}; }

    /// Lays out now (off the GUI thread); returns the request's generation.
    quint64 requestLayout();
    quint64 appliedLayoutGeneration() const { return m_appliedLayout; }
    int appliedLayoutCount() const { return m_layoutsApplied; }
    bool isLoading() const { return m_loading; }

    const LineageGraph &graph() const { return m_graph; }
    LineageScene *scene() const { return m_scene; }
    LineageView *view() const { return m_view; }

signals:
    /// The user selected a node (empty: none).
    void currentCandidateChanged(const QString &candidateId);
    /// The run shown changed, with its stored state (Created when none).
    void runChanged(std::int64_t runId, kx::RunState state);
    void layoutApplied(quint64 generation);
    /// A run's lineage was read (nodes: how many).
    void loaded(int nodes);
    void loadFailed(const QString &message);
    /// "New Candidate From This One" was chosen in a node's context menu.
    void newCandidateRequested(const QString &candidateId);
    /// Accept or Reject in a node's context menu.
    void reviewRequested(const QString &candidateId, bool accept);
    /// "Open in Kernels" in a node's context menu.
    void openInKernelsRequested(const QString &candidateId);
    /// Compare these two kernels (left: the marked one).
    void diffRequested(const QString &leftId, const QString &rightId);
    /// The badges show the verdicts read by refreshVerdicts().
    void verdictsRefreshed();

protected:
    void onVerdictsChanged(const QString &) override { refreshVerdicts(); }
    /// A hand-made candidate joins the lineage of its run.
    void onCandidateAdded(const kx::Candidate &candidate, int generation) override
    {
        addCandidate(candidate, generation);
    }

private:
    void scheduleLayout();
    void restyle();
    void updateGpuCombo();
    void updateStatus();
    void onSelectionChanged();
    void onRunComboChanged();
    void showNodeMenu(const QPoint &position);
    LineageGraph::Show shown() const;
    QVector<bool> visibility() const;
    /// Whether any view hides nodes (results change what they hide).
    bool narrowed() const;

    ArchiveRef m_archive;
    std::int64_t m_runId = 0;
    LineageGraph m_graph;
    QVector<int> m_matches;
    int m_matchCursor = -1;
    bool m_showPath = false;
    bool m_collapseFailed = false;
    bool m_eliteOnly = false;
    bool m_groupFailures = false;
    bool m_structureChanged = false;
    bool m_fitPending = false;
    QString m_pendingSelection; // Shown before its node was laid out: selected by a later layout.
    bool m_loading = false;
    bool m_selecting = false;
    LatestJob m_load;
    LatestJob m_runsRead;
    LatestJob m_verdictsRead;
    LatestJob m_layout;
    quint64 m_appliedLayout = 0;
    int m_layoutsApplied = 0;

    LineageScene *m_scene;
    LineageView *m_view;
    LineageOverview *m_overview;
    QComboBox *m_runCombo;
    QComboBox *m_gpuCombo;
    QComboBox *m_showCombo; // Which kernels: all, correct, faster than eager, failed.
    QLineEdit *m_search;
    QLabel *m_status;
    QAction *m_pathAction;
    QAction *m_collapseAction;
    QAction *m_eliteAction;
    QAction *m_groupAction;
    QAction *m_zoomInAction;
    QAction *m_zoomOutAction;
    QAction *m_fitAction;
    QTimer *m_layoutTimer;
    QTimer *m_lookTimer;
    ComparisonMark *m_mark = nullptr;
};

} // namespace kx::ui
