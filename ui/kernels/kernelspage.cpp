#include "ui/kernels/kernelspage.h"

#include "ui/common/archivereader.h"
#include "ui/common/comparisonmark.h"
#include "ui/common/format.h"
#include "ui/kernels/kernelsmodel.h"
#include "ui/kernels/kernelsproxymodel.h"

#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDataStream>
#include <QFontMetrics>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIODevice>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace kx::ui {

namespace {

// 2: the × Inductor and precision columns.
constexpr quint32 kStateVersion = 2;

} // namespace

KernelsPage::KernelsPage(QWidget *parent)
    : ArchivePage(parent)
    , m_model(new KernelsModel(this))
    , m_proxy(new KernelsProxyModel(this))
    , m_filter(new QLineEdit(this))
    , m_opFilter(new QComboBox(this))
    , m_statusFilter(new QComboBox(this))
    , m_flaggedOnly(new QCheckBox(tr("Flagged"), this))
    , m_count(new QLabel(this))
    , m_view(new QTableView(this))
{
    m_proxy->setSourceModel(m_model);

    m_filter->setObjectName(QStringLiteral("kernelsFilter"));
    m_filter->setPlaceholderText(tr("Filter by id, op or description"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &KernelsProxyModel::setTextFilter);

    m_opFilter->setObjectName(QStringLiteral("opFilter"));
    m_opFilter->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_opFilter->setToolTip(tr("Show the kernels of one op"));
    m_opFilter->addItem(tr("All ops"), QString());
    connect(m_opFilter, &QComboBox::currentIndexChanged, this,
            [this] { m_proxy->setOpFilter(m_opFilter->currentData().toString()); });

    m_statusFilter->setObjectName(QStringLiteral("statusFilter"));
    m_statusFilter->setToolTip(tr("Show kernels whose best evaluation has this status"));
    m_statusFilter->addItem(tr("All statuses"), QString());
    for (EvalStatus status :
         {EvalStatus::Correct, EvalStatus::Incorrect, EvalStatus::CompileError, EvalStatus::PlanError,
          EvalStatus::LaunchError, EvalStatus::Fault, EvalStatus::Timeout, EvalStatus::Crashed})
        m_statusFilter->addItem(Format::status(status), QString::fromLatin1(toString(status)));
    m_statusFilter->addItem(Format::status(std::nullopt), KernelsProxyModel::kNotEvaluated);
    connect(m_statusFilter, &QComboBox::currentIndexChanged, this,
            [this] { m_proxy->setStatusFilter(m_statusFilter->currentData().toString()); });

    m_flaggedOnly->setObjectName(QStringLiteral("flaggedOnly"));
    m_flaggedOnly->setToolTip(tr("Show only kernels with flagged evaluations"));
    connect(m_flaggedOnly, &QCheckBox::toggled, m_proxy, &KernelsProxyModel::setOnlyFlagged);

    m_count->setObjectName(QStringLiteral("kernelsCount"));

    m_view->setObjectName(QStringLiteral("kernelsView"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(KernelsModel::CreatedColumn, Qt::DescendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    // Several rows for a batch of comparisons; the current row is the kernel shown everywhere.
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this, [this](const QPoint &position) {
        const QModelIndex index = m_view->indexAt(position);
        if (!index.isValid())
            return;
        QMenu menu;
        fillContextMenu(menu, index.data(KernelsModel::CandidateIdRole).toString());
        menu.exec(m_view->viewport()->mapToGlobal(position));
    });
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->setSectionsMovable(true);
    m_view->horizontalHeader()->setHighlightSections(false);
    m_view->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    // Initial widths fit typical contents (and the possibly translated titles); saved state overrides them.
    const std::pair<int, QString> samples[] = {
        {KernelsModel::IdColumn, QStringLiteral("0123456789ab")},
        {KernelsModel::OpColumn, QStringLiteral("softmax")},
        {KernelsModel::OriginColumn, Format::origin(Origin::Translated)},
        {KernelsModel::OperatorColumn, QStringLiteral("block-size")},
        {KernelsModel::StatusColumn, Format::status(EvalStatus::CompileError)},
        {KernelsModel::SpeedupColumn, Format::speedup(10.0)},
        {KernelsModel::InductorSpeedupColumn, Format::speedup(10.0)},
        {KernelsModel::PrecisionColumn, QStringLiteral("kernelbench")},
        {KernelsModel::GpuColumn, QStringLiteral("NVIDIA H100 80GB HBM3")},
        {KernelsModel::MedianColumn, Format::ms(0.001234)},
        {KernelsModel::FlagsColumn, QStringLiteral("00")},
        {KernelsModel::VerdictColumn, Format::verdict(true)},
        {KernelsModel::CreatedColumn, Format::timestamp(1)},
    };
    const QFontMetrics cellMetrics(m_view->font());
    const QFontMetrics headerMetrics(m_view->horizontalHeader()->font());
    for (const auto &[column, sample] : samples) {
        const QString title = m_model->headerData(column, Qt::Horizontal).toString();
        m_view->setColumnWidth(
            column, std::max(cellMetrics.horizontalAdvance(sample) + 14, headerMetrics.horizontalAdvance(title) + 22));
    }
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &KernelsPage::onCurrentRowChanged);

    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(m_proxy, signal, this, &KernelsPage::updateCountLabel);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &KernelsPage::updateCountLabel);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &KernelsPage::updateCountLabel);

    auto filterBar = new QHBoxLayout;
    filterBar->setContentsMargins(6, 6, 6, 6);
    filterBar->addWidget(m_filter, 1);
    filterBar->addWidget(m_opFilter);
    filterBar->addWidget(m_statusFilter);
    filterBar->addWidget(m_flaggedOnly);
    filterBar->addWidget(m_count);

    auto layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(filterBar);
    layout->addWidget(m_view, 1);
    updateCountLabel();
}

void KernelsPage::setArchive(const ArchiveRef &archive)
{
    const bool another = archive.path != m_archive.path;
    m_archive = archive;
    if (another) {
        m_model->clear();
        updateOpFilter();
        if (!m_currentId.isEmpty()) {
            m_currentId.clear();
            emit currentCandidateChanged({});
        }
    }
    reload();
}

void KernelsPage::reload()
{
    m_load.invalidate();
    if (m_archive.empty()) {
        m_loading = false;
        m_model->clear();
        updateOpFilter();
        updateCountLabel();
        return;
    }
    m_loading = true;
    updateCountLabel();
    readArchiveAsync(m_archive, [](const Archive &archive) {
        return archive.candidateSummaries();
    }).then(this, m_load.guard([this](ReadResult<std::vector<CandidateSummary>> result) {
        m_loading = false;
        if (!result.ok()) {
            updateCountLabel();
            emit loadFailed(result.error);
            return;
        }
        const QString keep = m_currentId;
        m_model->setSummaries(std::move(result.value));
        updateOpFilter();
        updateCountLabel();
        // The reset dropped the selection; put it back on the same candidate when it is still there.
        if (!keep.isEmpty() && !selectCandidate(keep)) {
            m_currentId.clear();
            emit currentCandidateChanged({});
        }
        emit loaded(m_model->rowCount());
    }));
}

bool KernelsPage::selectCandidate(const QString &candidateId)
{
    const int sourceRow = m_model->rowOf(candidateId);
    if (sourceRow < 0)
        return false;
    QModelIndex index = m_proxy->mapFromSource(m_model->index(sourceRow, 0));
    if (!index.isValid()) {
        m_filter->clear();
        m_opFilter->setCurrentIndex(0);
        m_statusFilter->setCurrentIndex(0);
        m_flaggedOnly->setChecked(false);
        m_proxy->clearFilters();
        index = m_proxy->mapFromSource(m_model->index(sourceRow, 0));
    }
    m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_view->scrollTo(index);
    return true;
}

QStringList KernelsPage::selectedCandidateIds() const
{
    QStringList ids;
    for (const QModelIndex &row : m_view->selectionModel()->selectedRows())
        if (const QString id = row.data(KernelsModel::CandidateIdRole).toString(); id != m_currentId)
            ids << id;
    if (!m_currentId.isEmpty()
        && m_view->selectionModel()->isRowSelected(m_view->selectionModel()->currentIndex().row(), {}))
        ids << m_currentId;
    return ids;
}

void KernelsPage::fillContextMenu(QMenu &menu, const QString &candidateId)
{
    const QStringList selected = selectedCandidateIds();
    QAction *two = menu.addAction(tr("Diff the &Two Selected"));
    two->setObjectName(QStringLiteral("diffSelected"));
    two->setEnabled(selected.size() == 2);
    if (selected.size() == 2)
        connect(two, &QAction::triggered, this,
                [this, selected] { emit diffRequested(selected.at(0), selected.at(1)); });
    if (m_mark)
        m_mark->addActions(menu, candidateId,
                           [this](const QString &left, const QString &right) { emit diffRequested(left, right); });
    menu.addSeparator();
    QAction *copy = menu.addAction(tr("&Copy Id"));
    copy->setObjectName(QStringLiteral("copyId"));
    connect(copy, &QAction::triggered, this, [candidateId] { QGuiApplication::clipboard()->setText(candidateId); });
}

void KernelsPage::focusFilter()
{
    m_filter->setFocus(Qt::ShortcutFocusReason);
    m_filter->selectAll();
}

void KernelsPage::onCurrentRowChanged()
{
    const QModelIndex current = m_view->selectionModel()->currentIndex();
    const QString id = current.isValid() ? current.data(KernelsModel::CandidateIdRole).toString() : QString();
    if (id == m_currentId)
        return;
    m_currentId = id;
    emit currentCandidateChanged(id);
}

void KernelsPage::updateOpFilter()
{
    const QString current = m_opFilter->currentData().toString();
    const QStringList ops = m_model->opNames();
    QSignalBlocker blocker(m_opFilter);
    while (m_opFilter->count() > 1)
        m_opFilter->removeItem(1);
    for (const QString &op : ops)
        m_opFilter->addItem(op, op);
    const int index = m_opFilter->findData(current);
    m_opFilter->setCurrentIndex(index < 0 ? 0 : index);
    m_proxy->setOpFilter(m_opFilter->currentData().toString());
}

void KernelsPage::updateCountLabel()
{
    if (m_loading && m_model->rowCount() == 0) {
        m_count->setText(tr("Loading…"));
        return;
    }
    const int total = m_model->rowCount();
    const int shown = m_proxy->rowCount();
    m_count->setText(shown == total ? tr("Kernels: %1").arg(total) : tr("Kernels: %1 of %2").arg(shown).arg(total));
}

QByteArray KernelsPage::saveState() const
{
    QByteArray state;
    QDataStream stream(&state, QIODevice::WriteOnly);
    stream << kStateVersion << m_view->horizontalHeader()->saveState();
    return state;
}

void KernelsPage::restoreState(const QByteArray &state)
{
    QDataStream stream(state);
    quint32 version = 0;
    QByteArray header;
    stream >> version >> header;
    if (stream.status() == QDataStream::Ok && version == kStateVersion)
        m_view->horizontalHeader()->restoreState(header);
}

} // namespace kx::ui
