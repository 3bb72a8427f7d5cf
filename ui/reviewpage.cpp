#include "ui/reviewpage.h"

#include "ui/archivereader.h"
#include "ui/format.h"
#include "ui/reviewevidence.h"
#include "ui/reviewqueuemodel.h"
#include "ui/uiresources.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>

namespace kx::ui {

namespace {

struct EvidenceData
{
    std::optional<Op> op;
    std::vector<Evaluation> evaluations;
    std::string description;
};

} // namespace

ReviewPage::ReviewPage(QWidget *parent)
    : QWidget(parent)
    , m_model(new ReviewQueueModel(this))
    , m_view(new QTableView(this))
    , m_count(new QLabel(this))
    , m_evidence(new QTextBrowser(this))
    , m_accept(new QPushButton(icon(QStringLiteral("kernel-accept")), tr("Accept…"), this))
    , m_reject(new QPushButton(icon(QStringLiteral("kernel-reject")), tr("Reject…"), this))
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
    connect(m_accept, &QPushButton::clicked, this, [requestVerdict] { requestVerdict(true); });
    connect(m_reject, &QPushButton::clicked, this, [requestVerdict] { requestVerdict(false); });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &ReviewPage::onCurrentRowChanged);
    connect(m_model, &QAbstractItemModel::modelReset, this, &ReviewPage::onCurrentRowChanged);

    auto bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 4);
    bar->addWidget(m_count, 1);
    bar->addWidget(m_accept);
    bar->addWidget(m_reject);

    auto splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_view);
    splitter->addWidget(m_evidence);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);

    auto layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(splitter, 1);
    onCurrentRowChanged();
}

void ReviewPage::setArchivePath(const QString &path)
{
    m_archivePath = path;
    m_model->clear();
    if (path.isEmpty()) {
        ++m_generation;
        m_loading = false;
    } else {
        reload();
    }
}

void ReviewPage::reload()
{
    if (m_archivePath.isEmpty())
        return;
    const quint64 generation = ++m_generation;
    m_loading = true;
    const QString keep = m_currentId;
    readArchiveAsync(m_archivePath, [](const Archive &archive) { return archive.reviewQueue(); })
        .then(this, [this, generation, keep](const ReadResult<std::vector<CandidateSummary>> &result) {
            if (generation != m_generation)
                return;
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
        });
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

void ReviewPage::onCurrentRowChanged()
{
    const QModelIndex current = m_view->currentIndex();
    const QString id = current.isValid() ? m_model->data(current, ReviewQueueModel::CandidateIdRole).toString() : QString();
    m_accept->setEnabled(!id.isEmpty());
    m_reject->setEnabled(!id.isEmpty());
    if (id == m_currentId && !id.isEmpty())
        return;
    m_currentId = id;
    emit currentCandidateChanged(id);
    loadEvidence();
}

void ReviewPage::loadEvidence()
{
    const quint64 generation = ++m_evidenceGeneration;
    if (m_currentId.isEmpty() || m_archivePath.isEmpty()) {
        m_evidenceLoading = false;
        m_evidence->setHtml(QStringLiteral("<p>%1</p>").arg(tr("Select a kernel to see the evidence.")));
        return;
    }
    m_evidenceLoading = true;
    const std::string id = m_currentId.toStdString();
    readArchiveAsync(m_archivePath, [id](const Archive &archive) {
        EvidenceData data;
        if (std::optional<Candidate> candidate = archive.candidate(id)) {
            data.op = archive.op(candidate->opName);
            data.description = candidate->description;
        }
        data.evaluations = archive.evaluations(id);
        return data;
    }).then(this, [this, generation, id](const ReadResult<EvidenceData> &result) {
        if (generation != m_evidenceGeneration)
            return;
        m_evidenceLoading = false;
        if (!result.ok()) {
            m_evidence->setHtml(QStringLiteral("<p>%1</p>").arg(result.error.toHtmlEscaped()));
            return;
        }
        QString html = QStringLiteral("<h2>%1</h2><p>%2</p>")
                           .arg(Format::shortId(id), Format::text(result.value.description).toHtmlEscaped());
        m_evidence->setHtml(html + ReviewEvidence::html(result.value.op, result.value.evaluations));
    });
}

} // namespace kx::ui
