#include "ui/review/reviewpage.h"

#include "ui/common/archivereader.h"
#include "ui/common/format.h"
#include "ui/common/uiresources.h"
#include "ui/review/profileevidence.h"
#include "ui/review/profilerunner.h"
#include "ui/review/reviewevidence.h"
#include "ui/review/reviewqueuemodel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QTextCursor>
#include <QVBoxLayout>

#include <algorithm>

namespace kx::ui {

namespace {

struct EvidenceData
{
    std::optional<Op> op;
    std::vector<Evaluation> evaluations;
    std::vector<Profile> profiles;
    std::string description;
};

} // namespace

ReviewPage::ReviewPage(QWidget *parent)
    : ArchivePage(parent)
    , m_model(new ReviewQueueModel(this))
    , m_view(new QTableView(this))
    , m_count(new QLabel(this))
    , m_evidence(new QTextBrowser(this))
    , m_accept(new QPushButton(icon(QStringLiteral("kernel-accept")), tr("Accept…"), this))
    , m_reject(new QPushButton(icon(QStringLiteral("kernel-reject")), tr("Reject…"), this))
    , m_profiler(new ProfileRunner(this))
    , m_gpu(new QSpinBox(this))
    , m_profile(new QPushButton(tr("Profile"), this))
    , m_cancelProfile(new QPushButton(tr("Cancel"), this))
    , m_profileOutput(new QPlainTextEdit(this))
{
    m_view->setObjectName(QStringLiteral("reviewQueue"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_evidence->setObjectName(QStringLiteral("reviewEvidence"));
    m_evidence->setOpenLinks(false);
    m_accept->setObjectName(QStringLiteral("reviewAccept"));
    m_reject->setObjectName(QStringLiteral("reviewReject"));
    m_accept->setToolTip(tr("Accept the selected kernels (A)"));
    m_reject->setToolTip(tr("Reject the selected kernels (R)"));
    const auto requestVerdict = [this](bool accept) {
        const QStringList selected = selectedCandidateIds();
        if (selected.size() > 1)
            emit batchReviewRequested(selected, accept);
        else
            emit reviewRequested(m_currentId, accept);
    };
    m_gpu->setObjectName(QStringLiteral("profileGpu"));
    m_gpu->setRange(0, 63);
    m_gpu->setPrefix(tr("GPU "));
    m_gpu->setToolTip(tr("The GPU (CUDA device number) to profile on"));
    m_profile->setObjectName(QStringLiteral("reviewProfile"));
    m_cancelProfile->setObjectName(QStringLiteral("reviewCancelProfile"));
    m_cancelProfile->setToolTip(tr("Stop profiling; nothing is stored"));
    m_cancelProfile->setVisible(false);
    m_profileOutput->setObjectName(QStringLiteral("profileOutput"));
    m_profileOutput->setReadOnly(true);
    m_profileOutput->setMaximumBlockCount(2000);
    m_profileOutput->setVisible(false);
    connect(m_profile, &QPushButton::clicked, this, &ReviewPage::startProfile);
    connect(m_cancelProfile, &QPushButton::clicked, m_profiler, &ProfileRunner::cancel);
    connect(m_profiler, &ProfileRunner::output, this, [this](const QString &text) {
        m_profileOutput->moveCursor(QTextCursor::End);
        m_profileOutput->insertPlainText(text);
        m_profileOutput->moveCursor(QTextCursor::End);
    });
    connect(m_profiler, &ProfileRunner::finished, this, &ReviewPage::onProfileFinished);
    connect(m_accept, &QPushButton::clicked, this, [requestVerdict] { requestVerdict(true); });
    connect(m_reject, &QPushButton::clicked, this, [requestVerdict] { requestVerdict(false); });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &ReviewPage::onCurrentRowChanged);
    connect(m_model, &QAbstractItemModel::modelReset, this, &ReviewPage::onCurrentRowChanged);

    auto bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 4);
    bar->addWidget(m_count, 1);
    bar->addWidget(m_gpu);
    bar->addWidget(m_profile);
    bar->addWidget(m_cancelProfile);
    bar->addSpacing(12);
    bar->addWidget(m_accept);
    bar->addWidget(m_reject);

    auto evidence = new QSplitter(Qt::Vertical, this);
    evidence->addWidget(m_evidence);
    evidence->addWidget(m_profileOutput);
    evidence->setStretchFactor(0, 3);
    evidence->setStretchFactor(1, 1);

    auto splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_view);
    splitter->addWidget(evidence);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);

    auto layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(splitter, 1);
    onCurrentRowChanged();
}

void ReviewPage::setArchive(const ArchiveRef &archive)
{
    m_archive = archive;
    updateProfileActions();
    m_model->clear();
    if (archive.empty()) {
        m_queueRead.invalidate();
        m_loading = false;
    } else {
        reload();
    }
}

void ReviewPage::reload()
{
    if (m_archive.empty())
        return;
    m_loading = true;
    const QString keep = m_currentId;
    readArchiveAsync(m_archive, [](const Archive &archive) {
        return archive.reviewQueue();
    }).then(this, m_queueRead.guard([this, keep](const ReadResult<std::vector<CandidateSummary>> &result) {
        m_loading = false;
        if (!result.ok()) {
            m_model->clear();
            m_count->setText(tr("The review queue could not be read: %1").arg(result.error));
            emit loaded(0);
            return;
        }
        m_model->setQueue(result.value);
        m_view->resizeColumnsToContents();
        // Stay on the same kernel, or move to the one that took its place.
        const int row = m_model->rowOf(keep);
        const int select = row >= 0 ? row : (m_model->rowCount() > 0 ? 0 : -1);
        if (select >= 0)
            m_view->setCurrentIndex(m_model->index(select, ReviewQueueModel::IdColumn));
        m_count->setText(tr("%n kernel(s) await review, most suspicious first.", nullptr, m_model->rowCount()));
        emit loaded(m_model->rowCount());
    }));
}

bool ReviewPage::selectCandidate(const QString &candidateId)
{
    const int row = m_model->rowOf(candidateId);
    if (row < 0)
        return false;
    m_view->setCurrentIndex(m_model->index(row, ReviewQueueModel::IdColumn));
    return true;
}

QStringList ReviewPage::selectedCandidateIds() const
{
    QModelIndexList rows = m_view->selectionModel()->selectedRows(ReviewQueueModel::IdColumn);
    std::sort(rows.begin(), rows.end(), [](const QModelIndex &a, const QModelIndex &b) { return a.row() < b.row(); });
    QStringList ids;
    for (const QModelIndex &row : rows)
        ids << m_model->data(row, ReviewQueueModel::CandidateIdRole).toString();
    return ids;
}

QString ReviewPage::evidenceHtml() const
{
    return m_evidence->toHtml();
}

QString ReviewPage::profileOutput() const
{
    return m_profileOutput->toPlainText();
}

void ReviewPage::updateProfileActions()
{
    const bool running = m_profiler->isRunning();
    const bool readOnly = !m_archive.empty() && m_archive.isReadOnly();
    m_profile->setEnabled(!m_currentId.isEmpty() && !m_archive.empty() && !readOnly && !running);
    m_profile->setToolTip(readOnly ? tr("The archive is open read-only, and a profile is stored in it. Open it for "
                                        "writing (File > Open Archive) to profile kernels.")
                                   : tr("Run one launch of the selected kernel and of the eager reference under "
                                        "Nsight Compute (ncu) and store what the hardware measured"));
    m_cancelProfile->setVisible(running);
    m_gpu->setEnabled(!running);
}

void ReviewPage::startProfile()
{
    if (m_currentId.isEmpty() || m_archive.isReadOnly() || m_profiler->isRunning())
        return;
    m_profileOutput->clear();
    m_profileOutput->setVisible(true);
    m_profileOutput->appendPlainText(tr("Profiling %1 on GPU %2 with Nsight Compute…\n")
                                         .arg(Format::shortId(m_currentId.toStdString()))
                                         .arg(m_gpu->value()));
    m_profiler->start(m_currentId, archiveFilePath(m_archive), m_gpu->value());
    updateProfileActions();
}

void ReviewPage::onProfileFinished(bool ok, const QString &message)
{
    m_profileOutput->appendPlainText(message);
    updateProfileActions();
    if (m_profiler->candidateId() == m_currentId)
        loadEvidence();
    emit profileFinished(ok, message);
}

void ReviewPage::onCurrentRowChanged()
{
    const QModelIndex current = m_view->currentIndex();
    const QString id =
        current.isValid() ? m_model->data(current, ReviewQueueModel::CandidateIdRole).toString() : QString();
    m_accept->setEnabled(!id.isEmpty());
    m_reject->setEnabled(!id.isEmpty());
    if (id == m_currentId && !id.isEmpty())
        return;
    m_currentId = id;
    updateProfileActions();
    emit currentCandidateChanged(id);
    loadEvidence();
}

void ReviewPage::loadEvidence()
{
    m_evidenceRead.invalidate();
    if (m_currentId.isEmpty() || m_archive.empty()) {
        m_evidenceLoading = false;
        m_evidence->setHtml(QStringLiteral("<p>%1</p>").arg(tr("Select a kernel to see the evidence.")));
        return;
    }
    m_evidenceLoading = true;
    const std::string id = m_currentId.toStdString();
    readArchiveAsync(m_archive, [id](const Archive &archive) {
        EvidenceData data;
        if (std::optional<Candidate> candidate = archive.candidate(id)) {
            data.op = archive.op(candidate->opName);
            data.description = candidate->description;
        }
        data.evaluations = archive.evaluations(id);
        data.profiles = archive.profiles(id);
        return data;
    }).then(this, m_evidenceRead.guard([this, id](const ReadResult<EvidenceData> &result) {
        m_evidenceLoading = false;
        if (!result.ok()) {
            m_evidence->setHtml(QStringLiteral("<p>%1</p>").arg(result.error.toHtmlEscaped()));
            return;
        }
        QString html = QStringLiteral("<h2>%1</h2><p>%2</p>")
                           .arg(Format::shortId(id), Format::text(result.value.description).toHtmlEscaped());
        // What the hardware measured first, when there is a profile: it is the evidence a model cannot fake.
        const QString profiles = ProfileEvidence::html(result.value.profiles);
        const QString evaluations = ReviewEvidence::html(result.value.op, result.value.evaluations);
        m_evidence->setHtml(html + (result.value.profiles.empty() ? evaluations + profiles : profiles + evaluations));
    }));
}

} // namespace kx::ui
