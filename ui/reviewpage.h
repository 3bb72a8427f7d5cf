#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;
class QTextBrowser;

namespace kx::ui {

class ReviewQueueModel;

/**
 * The review queue: correct but flagged candidates without a verdict, most suspicious first, and the
 * evidence of the selected one. Accept/Reject ask the window to record a verdict (reviewRequested).
 */
class ReviewPage : public QWidget
{
    Q_OBJECT

public:
    explicit ReviewPage(QWidget *parent = nullptr);

    void setArchivePath(const QString &path);
    void reload();

    QString currentCandidateId() const { return m_currentId; }
    /// The kernels of the selected rows, in queue order (Shift or Ctrl selects several for one verdict).
    QStringList selectedCandidateIds() const;
    bool selectCandidate(const QString &candidateId);
    bool isLoading() const { return m_loading || m_evidenceLoading; }

    ReviewQueueModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QString evidenceHtml() const;

signals:
    void reviewRequested(const QString &candidateId, bool accept);
    /// Accept or Reject with several rows selected: one verdict for all of them.
    void batchReviewRequested(const QStringList &candidateIds, bool accept);
    void currentCandidateChanged(const QString &candidateId);
    void loaded(int rows);

private:
    void onCurrentRowChanged();
    void loadEvidence();

    QString m_archivePath;
    QString m_currentId;
    quint64 m_generation = 0;
    quint64 m_evidenceGeneration = 0;
    bool m_loading = false;
    bool m_evidenceLoading = false;
    ReviewQueueModel *m_model;
    QTableView *m_view;
    QLabel *m_count;
    QTextBrowser *m_evidence;
    QPushButton *m_accept;
    QPushButton *m_reject;
};

} // namespace kx::ui
