#pragma once

#include "ui/common/archivepage.h"
#include "ui/common/latestjob.h"

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableView;
class QTextBrowser;

namespace kx::ui {

class ProfileRunner;
class ReviewQueueModel;

/**
 * The review queue: correct but flagged candidates without a verdict, most suspicious first, and the
 * evidence of the selected one. Accept/Reject ask the window to record a verdict (reviewRequested). Profile runs
 * the selected kernel and its eager reference under Nsight Compute (`kx profile`, a child process) and shows
 * the stored metrics with the evidence; a read-only archive cannot take a profile.
 */
class ReviewPage : public ArchivePage
{
    Q_OBJECT

public:
    explicit ReviewPage(QWidget *parent = nullptr);

    /// Reads the archive's review queue; a read-only handle takes no profile.
    void setArchive(const ArchiveRef &archive) override;
    void reload() override;

    QString currentCandidateId() const { return m_currentId; }
    /// The kernels of the selected rows, in queue order (Shift or Ctrl selects several for one verdict).
    QStringList selectedCandidateIds() const;
    bool selectCandidate(const QString &candidateId);
    bool isLoading() const { return m_loading || m_evidenceLoading; }

    ReviewQueueModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QString evidenceHtml() const;

    ProfileRunner *profileRunner() const { return m_profiler; }
    QPushButton *profileButton() const { return m_profile; }
    QPushButton *cancelProfileButton() const { return m_cancelProfile; }
    QSpinBox *gpuChooser() const { return m_gpu; }
    QString profileOutput() const;

signals:
    void reviewRequested(const QString &candidateId, bool accept);
    /// Accept or Reject with several rows selected: one verdict for all of them.
    void batchReviewRequested(const QStringList &candidateIds, bool accept);
    void currentCandidateChanged(const QString &candidateId);
    void loaded(int rows);
    /// A profile run ended (ok: stored and all of it worked); the evidence is being reloaded.
    void profileFinished(bool ok, const QString &message);

protected:
    /// A judged kernel leaves the queue, a retracted verdict brings it back.
    void onVerdictsChanged(const QString &) override { reload(); }

private:
    void onCurrentRowChanged();
    void loadEvidence();
    void startProfile();
    void onProfileFinished(bool ok, const QString &message);
    void updateProfileActions();

    ArchiveRef m_archive;
    QString m_currentId;
    LatestJob m_queueRead;
    LatestJob m_evidenceRead;
    bool m_loading = false;
    bool m_evidenceLoading = false;
    ReviewQueueModel *m_model;
    QTableView *m_view;
    QLabel *m_count;
    QTextBrowser *m_evidence;
    QPushButton *m_accept;
    QPushButton *m_reject;
    ProfileRunner *m_profiler;
    QSpinBox *m_gpu;
    QPushButton *m_profile;
    QPushButton *m_cancelProfile;
    QPlainTextEdit *m_profileOutput;
};

} // namespace kx::ui
