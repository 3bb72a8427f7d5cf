#pragma once

#include "ui/common/archivepage.h"
#include "ui/common/latestjob.h"

class QCheckBox;
class QMenu;
class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace kx::ui {

class ComparisonMark;
class KernelsModel;
class KernelsProxyModel;

/// The kernels page: a filter bar over a sortable table of every candidate in the archive.
/// Rows are read off the GUI thread; a newer load supersedes an older one.
class KernelsPage : public ArchivePage
{
    Q_OBJECT

public:
    explicit KernelsPage(QWidget *parent = nullptr);

    /// Loads the candidates of the archive (an empty handle clears the table).
    void setArchive(const ArchiveRef &archive) override;
    const ArchiveRef &archive() const { return m_archive; }
    void reload() override;

    /// Selects the candidate, clearing the filters when they hide it. False when it is not loaded.
    bool selectCandidate(const QString &candidateId);
    QString currentCandidateId() const { return m_currentId; }
    /// The selected rows' candidates, the current one last (several rows: Ctrl or Shift and a click).
    QStringList selectedCandidateIds() const;
    void focusFilter();
    /// The window's comparison mark, offered in the context menu (not owned).
    void setComparisonMark(ComparisonMark *mark) { m_mark = mark; }
    /// The context menu of the kernel's row: the comparisons, and its id to copy.
    void fillContextMenu(QMenu &menu, const QString &candidateId);

    QByteArray saveState() const;
    void restoreState(const QByteArray &state);

    KernelsModel *model() const { return m_model; }
    KernelsProxyModel *proxy() const { return m_proxy; }
    QTableView *view() const { return m_view; }
    bool isLoading() const { return m_loading; }

signals:
    void currentCandidateChanged(const QString &candidateId);
    /// Compare these two kernels (left: the older choice, the marked one or the other of two selected rows).
    void diffRequested(const QString &leftId, const QString &rightId);
    /// A load finished: rows is the number of candidates now in the table.
    void loaded(int rows);
    void loadFailed(const QString &message);

protected:
    // A verdict changes a row's badge, a stored candidate adds a row.
    void onVerdictsChanged(const QString &) override { reload(); }
    void onCandidateAdded(const kx::Candidate &, int) override { reload(); }

private:
    void updateOpFilter();
    void updateCountLabel();
    void onCurrentRowChanged();

    ArchiveRef m_archive;
    QString m_currentId;
    LatestJob m_load;
    bool m_loading = false;
    KernelsModel *m_model;
    KernelsProxyModel *m_proxy;
    QLineEdit *m_filter;
    QComboBox *m_opFilter;
    QComboBox *m_statusFilter;
    QCheckBox *m_flaggedOnly;
    QLabel *m_count;
    QTableView *m_view;
    ComparisonMark *m_mark = nullptr;
};

} // namespace kx::ui
