#include "ui/window/opendialog.h"

#include "ui/common/archivereader.h"
#include "ui/common/format.h"

#include "core/ops/builtinops.h"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace kx::ui {

namespace {

const char kRecentOpsKey[] = "recentOps";
constexpr int kMaxRecentOps = 8;

QString shapeText(const TensorSpec &tensor)
{
    QStringList dims;
    for (const std::string &dim : tensor.shape)
        dims << QString::fromStdString(dim);
    return QStringLiteral("%1[%2] %3")
        .arg(QString::fromStdString(tensor.name), dims.join(QStringLiteral(", ")),
             QString::fromStdString(tensor.dtype));
}

QString shapeSetText(const ShapeSet &set)
{
    QStringList parts;
    for (const auto &[symbol, size] : set)
        parts << QStringLiteral("%1=%2").arg(QString::fromStdString(symbol)).arg(size);
    return parts.join(QStringLiteral(", "));
}

} // namespace

OpenDialog::OpenDialog(const QString &archivePath, QWidget *parent)
    : QDialog(parent)
    , m_archivePath(archivePath)
    , m_model(new QStandardItemModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_filter(new QLineEdit(this))
    , m_list(new QListView(this))
    , m_title(new QLabel(this))
    , m_description(new QLabel(this))
    , m_shapes(new QLabel(this))
    , m_reference(new QPlainTextEdit(this))
    , m_runs(new QTreeWidget(this))
    , m_kernelBench(new QLabel(this))
{
    setWindowTitle(tr("Open Op"));
    setObjectName(QStringLiteral("openOpDialog"));
    resize(900, 600);

    m_proxy->setSourceModel(m_model);
    m_proxy->setFilterRole(SearchTextRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);

    m_filter->setObjectName(QStringLiteral("opFilter"));
    m_filter->setPlaceholderText(tr("Search ops by name or description"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, this, &OpenDialog::setFilterText);

    m_list->setObjectName(QStringLiteral("opList"));
    m_list->setModel(m_proxy);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_list->setUniformItemSizes(true);
    connect(m_list->selectionModel(), &QItemSelectionModel::currentChanged, this, &OpenDialog::showSelected);
    connect(m_list, &QListView::activated, this, &QDialog::accept);
    // Arrow keys in the search field move through the list, so the keyboard never has to leave it.
    m_filter->installEventFilter(this);

    m_title->setObjectName(QStringLiteral("opTitle"));
    m_description->setObjectName(QStringLiteral("opDescription"));
    m_description->setWordWrap(true);
    m_shapes->setObjectName(QStringLiteral("opShapes"));
    m_shapes->setWordWrap(true);
    m_shapes->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_reference->setObjectName(QStringLiteral("opReference"));
    m_reference->setReadOnly(true);
    m_reference->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_reference->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_runs->setObjectName(QStringLiteral("opRuns"));
    m_runs->setRootIsDecorated(false);
    m_runs->setHeaderLabels({tr("Run"), tr("State"), tr("Seed"), tr("Started")});
    m_runs->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    connect(m_runs, &QTreeWidget::itemActivated, this, &QDialog::accept);
    m_kernelBench->setObjectName(QStringLiteral("kernelBenchNote"));
    m_kernelBench->setWordWrap(true);

    auto *left = new QWidget(this);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_filter);
    leftLayout->addWidget(m_list, 1);
    leftLayout->addWidget(m_kernelBench);

    auto *right = new QWidget(this);
    auto *form = new QVBoxLayout(right);
    form->setContentsMargins(0, 0, 0, 0);
    form->addWidget(m_title);
    form->addWidget(m_description);
    form->addWidget(m_shapes);
    form->addWidget(new QLabel(tr("PyTorch reference:"), right));
    form->addWidget(m_reference, 2);
    form->addWidget(new QLabel(tr("Earlier runs in this archive:"), right));
    form->addWidget(m_runs, 1);

    auto *splitter = new QSplitter(this);
    splitter->addWidget(left);
    splitter->addWidget(right);
    splitter->setStretchFactor(1, 2);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(splitter, 1);
    layout->addWidget(buttons);

    rebuild();
    m_kernelBench->setText(
        tr("KernelBench problems imported into this archive are listed here; this archive has none."));
    if (!m_archivePath.isEmpty()) {
        ++m_pendingReads;
        readArchiveAsync(m_archivePath, [](const Archive &archive) {
            std::vector<Op> imported;
            for (Op &op : archive.ops())
                if (op.sourceKind != SourceKind::BuiltIn)
                    imported.push_back(std::move(op));
            return imported;
        }).then(this, [this](const ReadResult<std::vector<Op>> &result) {
            --m_pendingReads;
            if (!result.ok()) {
                m_kernelBench->setText(tr("The archive's ops could not be read: %1").arg(result.error));
                return;
            }
            m_archiveOps = result.value;
            if (!m_archiveOps.empty()) {
                m_kernelBench->setText(tr("%n op(s) imported into this archive (KernelBench and others) are listed "
                                          "after the built-in ones.",
                                          nullptr, int(m_archiveOps.size())));
                rebuild();
            }
            emit archiveOpsLoaded(int(m_archiveOps.size()));
        });
    }
    m_filter->setFocus();
}

void OpenDialog::addOpRow(const Op &op, bool recent)
{
    const QString name = QString::fromStdString(op.name);
    const QString source = op.sourceKind == SourceKind::BuiltIn       ? tr("built-in")
                           : op.sourceKind == SourceKind::KernelBench ? tr("KernelBench")
                                                                      : tr("manual");
    auto *item = new QStandardItem(recent                                 ? tr("%1  (recent)").arg(name)
                                   : op.sourceKind == SourceKind::BuiltIn ? name
                                                                          : tr("%1  (%2)").arg(name, source));
    item->setData(name, OpNameRole);
    item->setData(name + QLatin1Char(' ') + QString::fromStdString(op.description), SearchTextRole);
    item->setData(recent, RecentRole);
    item->setData(source, SourceRole);
    item->setToolTip(QString::fromStdString(op.description));
    if (recent) {
        QFont font = item->font();
        font.setBold(true);
        item->setFont(font);
    }
    m_model->appendRow(item);
}

void OpenDialog::rebuild()
{
    const QString keep = selectedOp() ? QString::fromStdString(selectedOp()->name) : QString();
    m_model->clear();
    const QStringList recent = recentOps();
    auto findOp = [this](const QString &name) -> const Op * {
        if (const Op *op = findBuiltInOp(name.toStdString()))
            return op;
        for (const Op &op : m_archiveOps)
            if (QString::fromStdString(op.name) == name)
                return &op;
        return nullptr;
    };
    for (const QString &name : recent)
        if (const Op *op = findOp(name))
            addOpRow(*op, true);
    for (const Op &op : builtInOps())
        if (!recent.contains(QString::fromStdString(op.name)))
            addOpRow(op, false);
    for (const Op &op : m_archiveOps)
        if (!recent.contains(QString::fromStdString(op.name)))
            addOpRow(op, false);
    if (keep.isEmpty() || !selectOp(keep))
        if (m_proxy->rowCount() > 0)
            m_list->setCurrentIndex(m_proxy->index(0, 0));
}

void OpenDialog::setFilterText(const QString &text)
{
    if (m_filter->text() != text) {
        m_filter->setText(text);
        return;
    }
    m_proxy->setFilterFixedString(text);
    if (!m_list->currentIndex().isValid() && m_proxy->rowCount() > 0)
        m_list->setCurrentIndex(m_proxy->index(0, 0));
    showSelected();
}

bool OpenDialog::selectOp(const QString &name)
{
    for (int row = 0; row < m_proxy->rowCount(); ++row) {
        const QModelIndex index = m_proxy->index(row, 0);
        if (index.data(OpNameRole).toString() == name) {
            m_list->setCurrentIndex(index);
            return true;
        }
    }
    return false;
}

std::optional<Op> OpenDialog::selectedOp() const
{
    const QModelIndex index = m_list->currentIndex();
    if (!index.isValid())
        return std::nullopt;
    const std::string name = index.data(OpNameRole).toString().toStdString();
    if (const Op *op = findBuiltInOp(name))
        return *op;
    for (const Op &op : m_archiveOps)
        if (op.name == name)
            return op;
    return std::nullopt;
}

std::int64_t OpenDialog::selectedRunId() const
{
    const QTreeWidgetItem *item = m_runs->currentItem();
    return item ? item->data(0, Qt::UserRole).toLongLong() : 0;
}

void OpenDialog::showSelected()
{
    const std::optional<Op> op = selectedOp();
    if (!op) {
        m_title->clear();
        m_description->setText(tr("No op matches."));
        m_shapes->clear();
        m_reference->clear();
        m_runs->clear();
        return;
    }
    m_title->setText(QStringLiteral("<b>%1</b>").arg(QString::fromStdString(op->name).toHtmlEscaped()));
    m_description->setText(QString::fromStdString(op->description));
    QStringList shapes;
    QStringList inputs;
    for (const TensorSpec &tensor : op->inputs)
        inputs << shapeText(tensor);
    shapes << tr("Inputs: %1").arg(inputs.join(QStringLiteral("; ")));
    for (std::size_t i = 0; i < op->shapeSets.size(); ++i)
        shapes << (i == 0 ? tr("Shapes (timed): %1") : tr("Shapes (checked): %1")).arg(shapeSetText(op->shapeSets[i]));
    m_shapes->setText(shapes.join(QLatin1Char('\n')));
    m_reference->setPlainText(QString::fromStdString(op->referenceSource));
    loadRuns(QString::fromStdString(op->name));
}

void OpenDialog::loadRuns(const QString &opName)
{
    const LatestJob::Ticket ticket = m_runsRead.start();
    m_runs->clear();
    if (m_archivePath.isEmpty())
        return;
    ++m_pendingReads;
    const std::string name = opName.toStdString();
    readArchiveAsync(m_archivePath, [name](const Archive &archive) {
        return archive.runs(name);
    }).then(this, [this, ticket](const ReadResult<std::vector<Run>> &result) {
        --m_pendingReads;
        if (!m_runsRead.isCurrent(ticket))
            return;
        if (!result.ok()) {
            auto *item = new QTreeWidgetItem(m_runs, {tr("The runs could not be read: %1").arg(result.error)});
            item->setFlags(Qt::NoItemFlags);
            emit runsLoaded(0);
            return;
        }
        for (auto it = result.value.rbegin(); it != result.value.rend(); ++it) {
            auto *item = new QTreeWidgetItem(m_runs, {QString::number(it->id), QString::fromLatin1(toString(it->state)),
                                                      QString::number(it->seed), Format::timestamp(it->createdAtMs)});
            item->setData(0, Qt::UserRole, QVariant::fromValue<qint64>(it->id));
        }
        emit runsLoaded(int(result.value.size()));
    });
}

QString OpenDialog::referenceText() const
{
    return m_reference->toPlainText();
}

QString OpenDialog::shapesText() const
{
    return m_shapes->text();
}

void OpenDialog::accept()
{
    const std::optional<Op> op = selectedOp();
    if (!op)
        return;
    addRecentOp(QString::fromStdString(op->name));
    QDialog::accept();
}

bool OpenDialog::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_filter && event->type() == QEvent::KeyPress) {
        switch (static_cast<QKeyEvent *>(event)->key()) {
        case Qt::Key_Up:
        case Qt::Key_Down:
        case Qt::Key_PageUp:
        case Qt::Key_PageDown: QCoreApplication::sendEvent(m_list, event); return true;
        default: break;
        }
    }
    return QDialog::eventFilter(watched, event);
}

QStringList OpenDialog::recentOps()
{
    return QSettings().value(QLatin1String(kRecentOpsKey)).toStringList();
}

void OpenDialog::addRecentOp(const QString &name)
{
    QStringList recent = recentOps();
    recent.removeAll(name);
    recent.prepend(name);
    while (recent.size() > kMaxRecentOps)
        recent.removeLast();
    QSettings().setValue(QLatin1String(kRecentOpsKey), recent);
}

} // namespace kx::ui
