#include "ui/lineage/lineagepage.h"

#include "ui/common/archivereader.h"
#include "ui/common/comparisonmark.h"
#include "ui/common/format.h"
#include "ui/common/uiresources.h"
#include "ui/lineage/lineagecontrols.h"
#include "ui/lineage/lineagelayout.h"
#include "ui/lineage/lineagenodeitem.h"
#include "ui/lineage/lineageoverview.h"
#include "ui/lineage/lineagescene.h"
#include "ui/lineage/lineageview.h"

#include <QAction>
#include <QClipboard>
#include <QComboBox>
#include <QGridLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <map>

namespace kx::ui {

namespace {

// Live runs add nodes many times a second: lay out at most this often.
constexpr int kLayoutDelayMs = 150;
constexpr int kLookDelayMs = 100;

struct RunEntry
{
    std::int64_t id = 0;
    QString label;
    RunState state = RunState::Created;
};

} // namespace

LineagePage::LineagePage(QWidget *parent)
    : ArchivePage(parent)
    , m_scene(new LineageScene(this))
    , m_view(new LineageView(this))
    , m_overview(new LineageOverview(m_view, this))
    , m_runCombo(new QComboBox(this))
    , m_gpuCombo(new QComboBox(this))
    , m_showCombo(new QComboBox(this))
    , m_search(new QLineEdit(this))
    , m_status(new QLabel(this))
    , m_pathAction(new QAction(tr("Path to &Best"), this))
    , m_collapseAction(new QAction(tr("&Collapse Failed"), this))
    , m_eliteAction(new QAction(tr("&Elite Only"), this))
    , m_groupAction(new QAction(tr("&Group Failures"), this))
    , m_zoomInAction(new QAction(icon(QStringLiteral("zoom-in")), tr("Zoom &In"), this))
    , m_zoomOutAction(new QAction(icon(QStringLiteral("zoom-out")), tr("Zoom &Out"), this))
    , m_fitAction(new QAction(icon(QStringLiteral("zoom-fit")), tr("&Fit Lineage"), this))
    , m_layoutTimer(new QTimer(this))
    , m_lookTimer(new QTimer(this))
{
    m_view->setObjectName(QStringLiteral("lineageView"));
    m_view->setScene(m_scene);
    connect(m_view, &LineageView::navigate, this, [this](LineageView::Direction d) { navigate(int(d)); });
    connect(m_scene, &QGraphicsScene::selectionChanged, this, &LineagePage::onSelectionChanged);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this, &LineagePage::showNodeMenu);

    m_runCombo->setObjectName(QStringLiteral("lineageRun"));
    m_runCombo->setToolTip(tr("The run whose lineage is shown"));
    m_runCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_runCombo->setMinimumContentsLength(14);
    connect(m_runCombo, &QComboBox::activated, this, &LineagePage::onRunComboChanged);

    m_gpuCombo->setObjectName(QStringLiteral("lineageGpu"));
    m_gpuCombo->setToolTip(tr("Colour by the results on this GPU"));
    m_gpuCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_gpuCombo->addItem(tr("Any GPU"), QString());
    connect(m_gpuCombo, &QComboBox::currentIndexChanged, this, [this] {
        if (narrowed())
            scheduleLayout();
        restyle();
    });

    m_showCombo->setObjectName(QStringLiteral("lineageShow"));
    m_showCombo->setToolTip(tr("Which kernels to show on the chosen GPU (with their ancestors, so each stays linked "
                               "to the root)"));
    m_showCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_showCombo->addItem(tr("All kernels"), int(LineageGraph::Show::All));
    m_showCombo->addItem(tr("Correct"), int(LineageGraph::Show::Correct));
    m_showCombo->addItem(tr("Faster than eager"), int(LineageGraph::Show::FasterThanEager));
    m_showCombo->addItem(tr("Failed"), int(LineageGraph::Show::Failed));
    connect(m_showCombo, &QComboBox::currentIndexChanged, this, [this] { requestLayout(); });

    m_search->setObjectName(QStringLiteral("lineageSearch"));
    m_search->setPlaceholderText(tr("Find by id, operator or description"));
    m_search->setClearButtonEnabled(true);
    m_search->setMinimumWidth(140);
    connect(m_search, &QLineEdit::textChanged, this, &LineagePage::setSearchText);
    connect(m_search, &QLineEdit::returnPressed, this, &LineagePage::selectNextMatch);

    m_pathAction->setCheckable(true);
    m_pathAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    m_pathAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_pathAction->setToolTip(tr("Highlight the path from the root to the fastest correct kernel (Ctrl+B)"));
    connect(m_pathAction, &QAction::toggled, this, &LineagePage::setShowPathToBest);
    m_collapseAction->setCheckable(true);
    m_collapseAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
    m_collapseAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_collapseAction->setToolTip(tr("Hide branches in which nothing is correct (Ctrl+K)"));
    connect(m_collapseAction, &QAction::toggled, this, &LineagePage::setCollapseFailed);
    m_eliteAction->setObjectName(QStringLiteral("eliteAction"));
    m_eliteAction->setCheckable(true);
    m_eliteAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
    m_eliteAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_eliteAction->setToolTip(tr("Show only the %1 fastest kernels, their ancestors and what else was tried at each "
                                 "step: a large run at a glance (Ctrl+Shift+K)")
                                  .arg(kEliteSize));
    connect(m_eliteAction, &QAction::toggled, this, [this](bool elite) {
        if (elite != m_eliteOnly) {
            m_eliteOnly = elite;
            requestLayout();
        }
    });
    m_groupAction->setObjectName(QStringLiteral("groupFailuresAction"));
    m_groupAction->setCheckable(true);
    m_groupAction->setToolTip(tr("Show the failures made from one kernel in one generation as one node that says "
                                 "how many there were"));
    connect(m_groupAction, &QAction::toggled, this, &LineagePage::setGroupFailures);
    connectZoomActions(m_zoomInAction, m_zoomOutAction, m_fitAction, m_view);
    addAction(m_pathAction);
    addAction(m_collapseAction);
    addAction(m_eliteAction);
    addAction(m_groupAction);
    addActions(zoomActions());

    m_status->setObjectName(QStringLiteral("lineageStatus"));

    m_layoutTimer->setSingleShot(true);
    m_layoutTimer->setInterval(kLayoutDelayMs);
    connect(m_layoutTimer, &QTimer::timeout, this, &LineagePage::requestLayout);
    m_lookTimer->setSingleShot(true);
    m_lookTimer->setInterval(kLookDelayMs);
    connect(m_lookTimer, &QTimer::timeout, this, &LineagePage::restyle);

    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(6, 6, 6, 6);
    bar->addWidget(m_runCombo);
    bar->addWidget(m_gpuCombo);
    bar->addWidget(m_showCombo);
    bar->addWidget(m_search, 1);
    bar->addWidget(actionButton(m_pathAction, this));
    bar->addWidget(viewsButton({m_collapseAction, m_eliteAction, m_groupAction}, this));
    bar->addWidget(actionButton(m_zoomOutAction, this));
    bar->addWidget(actionButton(m_zoomInAction, this));
    bar->addWidget(actionButton(m_fitAction, this));

    m_overview->setObjectName(QStringLiteral("lineageOverview"));
    m_overview->setFixedSize(220, 200);
    auto *side = new QVBoxLayout;
    side->setContentsMargins(0, 0, 6, 6);
    side->addWidget(m_overview);
    side->addWidget(lineageLegend(this));
    side->addWidget(m_status);
    side->addStretch(1);
    m_status->setWordWrap(true);

    auto *body = new QHBoxLayout;
    body->setContentsMargins(0, 0, 0, 0);
    body->addWidget(m_view, 1);
    body->addLayout(side);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addLayout(body, 1);
    updateStatus();
}

LineagePage::~LineagePage()
{
    // The scene is destroyed after this page: its items' selection changes must not reach a page that is gone.
    disconnect(m_scene, nullptr, this, nullptr);
}

void LineagePage::setArchive(const ArchiveRef &archive)
{
    const bool another = archive.path != m_archive.path;
    m_archive = archive;
    if (!another)
        return;
    m_runCombo->clear();
    showRun(0);
    reloadRuns();
}

void LineagePage::reloadRuns()
{
    m_runsRead.invalidate();
    if (m_archive.empty())
        return;
    readArchiveAsync(m_archive, [](const Archive &archive) {
        std::vector<RunEntry> entries;
        for (const Run &run : archive.runs()) {
            RunEntry entry;
            entry.id = run.id;
            entry.state = run.state;
            entry.label = tr("Run %1 · %2 · %3")
                              .arg(run.id)
                              .arg(QString::fromStdString(run.opName), QString::fromLatin1(toString(run.state)));
            entries.push_back(std::move(entry));
        }
        std::sort(entries.begin(), entries.end(), [](const RunEntry &a, const RunEntry &b) { return a.id > b.id; });
        return entries;
    }).then(this, m_runsRead.guard([this](const ReadResult<std::vector<RunEntry>> &result) {
        if (!result.ok()) {
            emit loadFailed(result.error);
            return;
        }
        QSignalBlocker blocker(m_runCombo);
        m_runCombo->clear();
        m_runCombo->addItem(tr("No run"), QVariant::fromValue<qint64>(0));
        m_runCombo->setItemData(0, int(RunState::Created), Qt::UserRole + 1);
        for (const RunEntry &entry : result.value) {
            m_runCombo->addItem(entry.label, QVariant::fromValue<qint64>(entry.id));
            m_runCombo->setItemData(m_runCombo->count() - 1, int(entry.state), Qt::UserRole + 1);
        }
        const int index = m_runCombo->findData(QVariant::fromValue<qint64>(m_runId));
        m_runCombo->setCurrentIndex(index < 0 ? 0 : index);
        if (index >= 0)
            emit runChanged(m_runId, RunState(m_runCombo->itemData(index, Qt::UserRole + 1).toInt()));
    }));
}

void LineagePage::onRunComboChanged()
{
    const std::int64_t id = m_runCombo->currentData().toLongLong();
    if (id != m_runId)
        showRun(id);
}

void LineagePage::showRun(std::int64_t runId)
{
    m_load.invalidate();
    m_runId = runId;
    m_graph.clear();
    m_matches.clear();
    m_matchCursor = -1;
    m_scene->clearLineage();
    m_layout.invalidate(); // Layouts of the previous run are stale now.
    m_fitPending = true;
    updateGpuCombo();
    const int index = m_runCombo->findData(QVariant::fromValue<qint64>(runId));
    if (index >= 0) {
        QSignalBlocker blocker(m_runCombo);
        m_runCombo->setCurrentIndex(index);
    }
    emit runChanged(runId,
                    index >= 0 ? RunState(m_runCombo->itemData(index, Qt::UserRole + 1).toInt()) : RunState::Created);
    if (runId <= 0 || m_archive.empty()) {
        m_loading = false;
        updateStatus();
        return;
    }
    m_loading = true;
    updateStatus();
    readArchiveAsync(m_archive, [runId](const Archive &archive) {
        return readLineage(archive, runId);
    }).then(this, m_load.guard([this](const ReadResult<LineageGraph> &result) {
        m_loading = false;
        if (!result.ok()) {
            updateStatus();
            emit loadFailed(result.error);
            return;
        }
        if (m_graph.isEmpty()) {
            m_graph = result.value;
        } else {
            // Live events arrived first: merge, keeping the archive's order for what it knew.
            LineageGraph merged = result.value;
            for (int i = 0; i < m_graph.size(); ++i)
                merged.addNode(m_graph.node(i));
            m_graph = merged;
            m_scene->clearLineage(); // Indices changed.
        }
        m_structureChanged = true;
        updateGpuCombo();
        requestLayout();
        emit loaded(m_graph.size());
    }));
}

void LineagePage::addCandidate(const Candidate &candidate, int generation)
{
    if (!candidate.runId || *candidate.runId != m_runId || m_runId == 0)
        return;
    bool added = false;
    m_graph.addNode(LineageGraph::nodeFromCandidate(candidate, generation), &added);
    if (added)
        scheduleLayout();
}

void LineagePage::addEvaluation(const Evaluation &evaluation)
{
    if (!m_graph.addEvaluation(evaluation))
        return;
    updateGpuCombo();
    if (narrowed())
        scheduleLayout();
    if (!m_lookTimer->isActive())
        m_lookTimer->start();
}

void LineagePage::refreshVerdicts()
{
    m_verdictsRead.invalidate();
    const std::int64_t runId = m_runId;
    if (runId <= 0 || m_archive.empty())
        return;
    readArchiveAsync(m_archive, [runId](const Archive &archive) {
        CandidateFilter filter;
        filter.runId = runId;
        QHash<QString, std::optional<bool>> verdicts;
        for (const CandidateSummary &row : archive.candidateSummaries(filter))
            verdicts.insert(QString::fromStdString(row.id), row.accepted);
        return verdicts;
    }).then(this, m_verdictsRead.guard([this, runId](const ReadResult<QHash<QString, std::optional<bool>>> &result) {
        if (runId != m_runId)
            return;
        if (!result.ok()) {
            emit loadFailed(result.error);
            return;
        }
        bool changed = false;
        for (int i = 0; i < m_graph.size(); ++i) {
            const QString &id = m_graph.node(i).id;
            // A candidate without a current verdict (one retracted, say) loses its badge.
            changed |= m_graph.setVerdict(id, result.value.value(id));
        }
        if (changed)
            restyle();
        emit verdictsRefreshed();
    }));
}

void LineagePage::showNodeMenu(const QPoint &position)
{
    QGraphicsItem *item = m_view->itemAt(position);
    while (item && item->type() != LineageNodeItem::Type)
        item = item->parentItem();
    if (!item)
        return;
    const QString id = m_graph.node(static_cast<LineageNodeItem *>(item)->index()).id;
    selectCandidate(id);
    onSelectionChanged();
    QMenu menu(this);
    fillNodeMenu(menu, id);
    menu.exec(m_view->viewport()->mapToGlobal(position));
}

void LineagePage::fillNodeMenu(QMenu &menu, const QString &id)
{
    const auto add = [&](const QString &text, const char *name, auto &&handler) {
        QAction *action = menu.addAction(text);
        action->setObjectName(QLatin1String(name));
        connect(action, &QAction::triggered, this, handler);
        return action;
    };
    // The shortcut belongs to the source view's action, which acts on the selection just made.
    add(tr("&New Candidate From This One…") + QLatin1Char('\t')
            + QKeySequence(Qt::CTRL | Qt::Key_E).toString(QKeySequence::NativeText),
        "nodeNewCandidate", [this, id] { emit newCandidateRequested(id); });
    menu.addSeparator();
    add(tr("&Accept…"), "nodeAccept", [this, id] { emit reviewRequested(id, true); });
    add(tr("&Reject…"), "nodeReject", [this, id] { emit reviewRequested(id, false); });
    menu.addSeparator();
    if (m_mark)
        m_mark->addActions(menu, id,
                           [this](const QString &left, const QString &right) { emit diffRequested(left, right); });
    menu.addSeparator();
    add(tr("Open in &Kernels"), "nodeOpenInKernels", [this, id] { emit openInKernelsRequested(id); });
    add(tr("&Copy Id"), "nodeCopyId", [id] { QGuiApplication::clipboard()->setText(id); });
}

void LineagePage::scheduleLayout()
{
    if (!m_layoutTimer->isActive())
        m_layoutTimer->start();
}

LineageGraph::Show LineagePage::shown() const
{
    return LineageGraph::Show(m_showCombo->currentData().toInt());
}

QVector<bool> LineagePage::visibility() const
{
    // Each view narrows what the others leave: a node is shown when all of them keep it.
    QVector<bool> visible;
    const auto narrow = [&visible](const QVector<bool> &keep) {
        if (visible.isEmpty())
            visible = keep;
        else
            for (int i = 0; i < visible.size(); ++i)
                visible[i] = visible.at(i) && keep.at(i);
    };
    if (m_collapseFailed)
        narrow(m_graph.visibleWithFailedCollapsed(gpu()));
    if (m_eliteOnly)
        narrow(m_graph.visibleElite(kEliteSize, gpu()));
    if (m_groupFailures)
        narrow(m_graph.visibleWithFailuresGrouped(gpu()));
    if (shown() != LineageGraph::Show::All)
        narrow(m_graph.visibleFiltered(shown(), gpu()));
    return visible;
}

quint64 LineagePage::requestLayout()
{
    m_layoutTimer->stop();
    const LatestJob::Ticket ticket = m_layout.start();
    // The graph's containers are implicitly shared: this copy costs nothing until the GUI thread changes it.
    QtConcurrent::run([graph = m_graph, visible = visibility()] {
        return std::make_pair(graph, layoutLineage(graph, visible, LineageScene::metrics()));
    }).then(this, m_layout.guard(ticket, [this, ticket](const std::pair<LineageGraph, LineageLayout> &result) {
        const QString keep = currentCandidateId();
        m_scene->applyLayout(result.first, result.second);
        m_appliedLayout = ticket;
        ++m_layoutsApplied;
        restyle();
        if (!m_pendingSelection.isEmpty() && selectCandidate(m_pendingSelection)) {
            m_pendingSelection.clear();
        } else {
            // A pending candidate is given up once the run is read and it is not in it.
            if (!m_loading && m_graph.indexOf(m_pendingSelection) < 0)
                m_pendingSelection.clear();
            if (!keep.isEmpty())
                selectCandidate(keep);
        }
        if (m_fitPending && result.second.nodeCount > 0) {
            m_fitPending = false;
            m_view->fit();
        }
        m_overview->refresh();
        updateStatus();
        emit layoutApplied(ticket);
    }));
    return ticket;
}

void LineagePage::restyle()
{
    m_lookTimer->stop();
    LineageHighlights highlights;
    highlights.gpu = gpu();
    highlights.matches = QSet<int>(m_matches.begin(), m_matches.end());
    highlights.best = m_graph.bestNode(highlights.gpu);
    if (m_showPath)
        highlights.path = pathToBest();
    m_scene->applyLook(m_graph, highlights);
    m_overview->refresh();
    updateStatus();
}

void LineagePage::updateGpuCombo()
{
    const QStringList gpus = m_graph.gpuNames();
    if (gpus.size() == m_gpuCombo->count() - 1)
        return; // GPUs only ever get added to a lineage.
    const QString current = gpu();
    QSignalBlocker blocker(m_gpuCombo);
    while (m_gpuCombo->count() > 1)
        m_gpuCombo->removeItem(1);
    for (const QString &name : gpus)
        m_gpuCombo->addItem(name, name);
    const int index = m_gpuCombo->findData(current);
    m_gpuCombo->setCurrentIndex(index < 0 ? 0 : index);
}

void LineagePage::updateStatus()
{
    if (m_loading) {
        m_status->setText(tr("Reading the run…"));
        return;
    }
    if (m_runId == 0) {
        m_status->setText(tr("Choose a run, or start a search."));
        return;
    }
    int correct = 0;
    for (int i = 0; i < m_graph.size(); ++i)
        if (m_graph.outcome(i, gpu()) == LineageOutcome::Correct)
            ++correct;
    QString text = tr("%n candidate(s), %1 correct", nullptr, m_graph.size()).arg(correct);
    const int best = m_graph.bestNode(gpu());
    if (best >= 0)
        text += QLatin1Char('\n')
                + tr("Best: %1 %2").arg(m_graph.node(best).id.left(10), Format::speedup(m_graph.speedup(best, gpu())));
    if (!m_search->text().isEmpty())
        text += QLatin1Char('\n') + tr("%n match(es)", nullptr, int(m_matches.size()));
    m_status->setText(text);
}

void LineagePage::showCandidate(const QString &candidateId)
{
    m_pendingSelection.clear();
    if (!candidateId.isEmpty() && !selectCandidate(candidateId))
        m_pendingSelection = candidateId;
}

bool LineagePage::selectCandidate(const QString &candidateId)
{
    const int index = m_graph.indexOf(candidateId);
    LineageNodeItem *item = index >= 0 ? m_scene->nodeItem(index) : nullptr;
    if (!item || !item->isVisible())
        return false;
    if (item->isSelected() && m_scene->selectedItems().size() == 1)
        return true;
    m_selecting = true;
    m_scene->clearSelection();
    item->setSelected(true);
    m_selecting = false;
    m_view->ensureVisible(item, 40, 40);
    return true;
}

QString LineagePage::currentCandidateId() const
{
    const QList<QGraphicsItem *> selected = m_scene->selectedItems();
    for (QGraphicsItem *item : selected)
        if (item->type() == LineageNodeItem::Type)
            return m_graph.node(static_cast<LineageNodeItem *>(item)->index()).id;
    return {};
}

void LineagePage::onSelectionChanged()
{
    if (m_selecting)
        return;
    const QString current = currentCandidateId();
    if (!current.isEmpty())
        m_pendingSelection.clear(); // The user's choice wins over one still waiting for its node.
    emit currentCandidateChanged(current);
}

QString LineagePage::gpu() const
{
    return m_gpuCombo->currentData().toString();
}

void LineagePage::setGpu(const QString &gpu)
{
    const int index = m_gpuCombo->findData(gpu);
    m_gpuCombo->setCurrentIndex(index < 0 ? 0 : index);
}

void LineagePage::setSearchText(const QString &text)
{
    if (m_search->text() != text) {
        m_search->setText(text); // Comes back here through textChanged.
        return;
    }
    m_matches = m_graph.find(text);
    m_matchCursor = -1;
    restyle();
}

bool LineagePage::selectNextMatch()
{
    QVector<int> visible;
    for (int i : std::as_const(m_matches))
        if (m_scene->isNodeVisible(i))
            visible << i;
    if (visible.isEmpty())
        return false;
    m_matchCursor = (m_matchCursor + 1) % int(visible.size());
    const QString id = m_graph.node(visible.at(m_matchCursor)).id;
    selectCandidate(id);
    emit currentCandidateChanged(id);
    return true;
}

void LineagePage::setShowPathToBest(bool show)
{
    m_showPath = show;
    if (m_pathAction->isChecked() != show)
        m_pathAction->setChecked(show);
    restyle();
}

QVector<int> LineagePage::pathToBest() const
{
    const int best = m_graph.bestNode(gpu());
    return best < 0 ? QVector<int>() : m_graph.pathFromRoot(best);
}

void LineagePage::setCollapseFailed(bool collapse)
{
    if (m_collapseAction->isChecked() != collapse)
        m_collapseAction->setChecked(collapse);
    if (collapse == m_collapseFailed)
        return;
    m_collapseFailed = collapse;
    requestLayout();
}

void LineagePage::setGroupFailures(bool group)
{
    if (m_groupAction->isChecked() != group)
        m_groupAction->setChecked(group);
    if (group == m_groupFailures)
        return;
    m_groupFailures = group;
    requestLayout();
}

bool LineagePage::narrowed() const
{
    return m_collapseFailed || m_eliteOnly || m_groupFailures || shown() != LineageGraph::Show::All;
}

void LineagePage::focusSearch()
{
    m_search->setFocus(Qt::ShortcutFocusReason);
    m_search->selectAll();
}

void LineagePage::navigate(int direction)
{
    const int current = m_graph.indexOf(currentCandidateId());
    auto shown = [this](int i) { return m_scene->isNodeVisible(i); };
    auto byX = [this](int a, int b) {
        return m_scene->layout().positions.at(a).x() < m_scene->layout().positions.at(b).x();
    };
    int target = -1;
    if (current < 0) {
        for (int i = 0; i < m_graph.size() && target < 0; ++i)
            if (shown(i))
                target = i; // Nothing selected yet: start at the first root.
    } else {
        switch (LineageView::Direction(direction)) {
        case LineageView::Direction::Parent:
            for (int parent : m_graph.parents(current))
                if (shown(parent)) {
                    target = parent;
                    break;
                }
            break;
        case LineageView::Direction::FirstChild: {
            QVector<int> children;
            for (int child : m_graph.children(current))
                if (shown(child))
                    children << child;
            if (!children.isEmpty())
                target = *std::min_element(children.begin(), children.end(), byX);
            break;
        }
        case LineageView::Direction::PreviousSibling:
        case LineageView::Direction::NextSibling: {
            // Siblings share the first parent; roots are siblings of each other.
            const QVector<int> &parents = m_graph.parents(current);
            QVector<int> siblings;
            if (parents.isEmpty()) {
                for (int i = 0; i < m_graph.size(); ++i)
                    if (m_graph.parents(i).isEmpty() && shown(i))
                        siblings << i;
            } else {
                for (int child : m_graph.children(parents.first()))
                    if (m_graph.parents(child).first() == parents.first() && shown(child))
                        siblings << child;
            }
            std::sort(siblings.begin(), siblings.end(), byX);
            const int at = int(siblings.indexOf(current));
            const int next = at + (LineageView::Direction(direction) == LineageView::Direction::NextSibling ? 1 : -1);
            if (at >= 0 && next >= 0 && next < siblings.size())
                target = siblings.at(next);
            break;
        }
        }
    }
    if (target < 0)
        return;
    const QString id = m_graph.node(target).id;
    selectCandidate(id);
    emit currentCandidateChanged(id);
}

} // namespace kx::ui
