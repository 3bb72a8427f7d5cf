#include "ui/plots/plotspage.h"

#include "ui/common/archivereader.h"
#include "ui/common/format.h"
#include "ui/common/uiresources.h"
#include "ui/plots/boxstats.h"
#include "ui/plots/plotstyle.h"
#include "ui/plots/portabilitytable.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QSplitter>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace kx::ui {

PlotsPage::PlotsPage(QWidget *parent)
    : ArchivePage(parent)
    , m_opCombo(new QComboBox(this))
    , m_runCombo(new QComboBox(this))
    , m_status(new QLabel(this))
    , m_logScale(new QCheckBox(tr("&Log scale"), this))
    , m_portability(new PortabilityTable(this))
    , m_exportMenu(new QMenu(this))
{
    m_logScale->setObjectName(QStringLiteral("plotsLogScale"));
    m_logScale->setToolTip(tr("Speedups on a logarithmic axis: 2x faster and 2x slower lie the same distance from 1x, "
                              "and kernels far apart in speed stay readable side by side"));
    connect(m_logScale, &QCheckBox::toggled, this, [this] {
        buildSpeedupBars();
        buildProgress();
        for (QCustomPlot *plot : {m_plots[SpeedupBarsPlot], m_plots[ProgressPlot]})
            plot->replot();
    });
    m_opCombo->setObjectName(QStringLiteral("plotsOp"));
    m_runCombo->setObjectName(QStringLiteral("plotsRun"));
    m_opCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_runCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(m_opCombo, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_updatingChoices)
            setScope(m_opCombo->currentText(), std::nullopt);
    });
    connect(m_runCombo, &QComboBox::currentIndexChanged, this, [this] {
        if (m_updatingChoices)
            return;
        const QVariant run = m_runCombo->currentData();
        setScope(m_scope.opName.isEmpty() ? m_data.opName : m_scope.opName,
                 run.isValid() ? std::optional<std::int64_t>(run.toLongLong()) : std::nullopt);
    });

    m_exportMenu->setTitle(tr("Export &Plot"));
    m_exportMenu->setIcon(icon(QStringLiteral("plot-export")));
    m_exportMenu->menuAction()->setObjectName(QStringLiteral("exportPlotAction"));
    const QString titles[PlotCount] = {tr("Speedup per GPU…"), tr("Best Speedup over the Search…"),
                                       tr("Runtime Distribution…"), tr("Roofline…")};
    for (int i = 0; i < PlotCount; ++i)
        m_exportMenu->addAction(titles[i], this, [this, i] { chooseExport(Plot(i)); });
    auto exportButton = new QToolButton(this);
    exportButton->setText(tr("Export"));
    exportButton->setIcon(m_exportMenu->icon());
    exportButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    exportButton->setPopupMode(QToolButton::InstantPopup);
    exportButton->setMenu(m_exportMenu);

    auto bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 4);
    bar->addWidget(new QLabel(tr("Op:"), this));
    bar->addWidget(m_opCombo);
    bar->addWidget(new QLabel(tr("Run:"), this));
    bar->addWidget(m_runCombo);
    bar->addWidget(m_status, 1);
    bar->addWidget(m_logScale);
    bar->addWidget(exportButton);

    auto grid = new QGridLayout;
    grid->setContentsMargins(4, 0, 4, 4);
    const QString names[PlotCount] = {QStringLiteral("speedupPlot"), QStringLiteral("progressPlot"),
                                      QStringLiteral("distributionPlot"), QStringLiteral("rooflinePlot")};
    for (int i = 0; i < PlotCount; ++i) {
        auto plot = new QCustomPlot(this);
        plot->setObjectName(names[i]);
        plot->setMinimumSize(320, 220);
        plot->setContextMenuPolicy(Qt::CustomContextMenu);
        plot->setMouseTracking(true);
        connect(plot, &QCustomPlot::mouseMove, this,
                [this, i](QMouseEvent *event) { showToolTip(Plot(i), event->pos()); });
        connect(plot, &QWidget::customContextMenuRequested, this, [this, i, plot](const QPoint &pos) {
            QMenu menu;
            menu.addAction(tr("Export Plot…"), this, [this, i] { chooseExport(Plot(i)); });
            menu.exec(plot->mapToGlobal(pos));
        });
        m_plots[i] = plot;
        grid->addWidget(plot, i / 2, i % 2);
    }
    addTitles(m_plots[SpeedupBarsPlot], tr("Speedup per GPU"), tr("Candidate"), tr("Speedup over eager (×)"));
    addTitles(m_plots[ProgressPlot], tr("Best speedup over the search"), tr("Candidates evaluated"),
              tr("Best speedup over eager (×)"));
    addTitles(m_plots[DistributionPlot], tr("Runtime of the selected kernel"), QString(), tr("Time per run (ms)"));
    addTitles(m_plots[RooflinePlot], tr("Roofline"), tr("Arithmetic intensity (FLOP/byte)"), tr("GFLOP/s"));
    putLegendAboveAxes(m_plots[SpeedupBarsPlot]);
    putLegendAboveAxes(m_plots[DistributionPlot]);
    for (QCustomPlot *plot : m_plots)
        applyPalette(plot);

    // The plots above, the same kernels on every GPU below.
    auto plots = new QWidget(this);
    plots->setLayout(grid);
    auto splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName(QStringLiteral("plotsSplitter"));
    splitter->addWidget(plots);
    splitter->addWidget(m_portability);
    splitter->setStretchFactor(0, 4);
    splitter->setStretchFactor(1, 1);
    splitter->setCollapsible(0, false);

    auto layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(splitter, 1);
    showData();
}

void PlotsPage::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    // The plots may take the new palette after this page does: restyle once they all have it.
    if (event->type() == QEvent::PaletteChange && !m_restylePending) {
        m_restylePending = true;
        QMetaObject::invokeMethod(
            this,
            [this] {
                m_restylePending = false;
                for (QCustomPlot *plot : m_plots)
                    applyPalette(plot);
                showData(); // Notes and reference lines take palette colours when they are built.
            },
            Qt::QueuedConnection);
    }
}

void PlotsPage::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_stale)
        read();
}

void PlotsPage::reload()
{
    m_opDataCurrent = false;
    read();
}

QList<QAction *> PlotsPage::pageActions() const
{
    return {m_exportMenu->menuAction()};
}

void PlotsPage::setArchive(const ArchiveRef &archive)
{
    m_archive = archive;
    m_opDataCurrent = false;
    m_scope = {};
    m_data = {};
    m_load.invalidate();
    m_loading = false;
    if (m_archive.empty())
        showData();
    else
        read();
}

void PlotsPage::showCandidate(const QString &candidateId)
{
    if (candidateId == m_scope.candidateId)
        return;
    m_scope.candidateId = candidateId;
    // Following the selection into another op resets the scope to that op.
    m_scope.opName.clear();
    m_scope.runId.reset();
    read();
}

void PlotsPage::setScope(const QString &opName, std::optional<std::int64_t> runId)
{
    m_scope.opName = opName;
    m_scope.runId = runId;
    read();
}

void PlotsPage::read()
{
    if (m_archive.empty())
        return;
    if (m_deferWhileHidden && !isVisible()) {
        m_stale = true;
        return;
    }
    m_stale = false;
    m_loading = true;
    m_status->setText(tr("Reading…"));
    const PlotsScope scope = m_scope;
    // The op's plots are kept when only the kernel changes (and nothing new was recorded meanwhile).
    std::optional<PlotsData> kept;
    if (m_opDataCurrent)
        kept = m_data;
    readArchiveAsync(m_archive, [scope, kept](const Archive &archive) {
        if (kept && !scope.candidateId.isEmpty())
            if (const auto selected = archive.candidate(scope.candidateId.toStdString());
                selected && kept->sameOpData(scope, QString::fromStdString(selected->opName))) {
                PlotsData data = *kept;
                PlotsData::addCandidate(archive, *selected, data);
                return data;
            }
        return PlotsData::prepare(archive, scope);
    }).then(this, m_load.guard([this](const ReadResult<PlotsData> &result) {
        m_loading = false;
        if (!result.ok()) {
            m_status->setText(tr("The plots could not be read: %1").arg(result.error));
            emit loadFailed(result.error);
            return;
        }
        m_data = result.value;
        m_opDataCurrent = true;
        m_gpuColors = gpuColors(m_data.gpus);
        showData();
        emit loaded();
    }));
}

void PlotsPage::showData()
{
    m_tips.clear();
    updateScopeChoices();
    buildSpeedupBars();
    buildProgress();
    buildDistribution();
    buildRoofline();
    m_portability->showData(m_data);
    if (!m_loading)
        m_status->setText(m_data.candidateId.isEmpty()
                              ? tr("Select a kernel for its runtime and roofline.")
                              : tr("Selected kernel: %1").arg(Format::shortId(m_data.candidateId.toStdString())));
    for (QCustomPlot *plot : m_plots)
        plot->replot();
}

void PlotsPage::updateScopeChoices()
{
    m_updatingChoices = true;
    m_opCombo->clear();
    m_opCombo->addItems(m_data.ops);
    m_opCombo->setCurrentIndex(m_opCombo->findText(m_data.opName));
    m_runCombo->clear();
    m_runCombo->addItem(tr("All runs"));
    for (const Run &run : m_data.runs) {
        m_runCombo->addItem(tr("Run %1 (%2)").arg(run.id).arg(Format::timestamp(run.createdAtMs)), qlonglong(run.id));
        if (m_data.runId == run.id)
            m_runCombo->setCurrentIndex(m_runCombo->count() - 1);
    }
    m_updatingChoices = false;
}

namespace {
const QColor kPalette[] = {QColor(31, 119, 180), QColor(255, 127, 14),  QColor(44, 160, 44),
                           QColor(214, 39, 40),  QColor(148, 103, 189), QColor(140, 86, 75)};
constexpr int kPaletteSize = int(std::size(kPalette));
} // namespace

QColor PlotsPage::seriesColor(int index)
{
    return kPalette[index % kPaletteSize];
}

QHash<QString, QColor> PlotsPage::gpuColors(const QStringList &gpus)
{
    QStringList sorted = gpus;
    sorted.sort();
    sorted.removeDuplicates();
    QHash<QString, QColor> colors;
    QVector<bool> taken(kPaletteSize, false);
    for (const QString &gpu : sorted) {
        int slot = int(qChecksum(gpu.toUtf8()) % kPaletteSize);
        for (int probe = 0; probe < kPaletteSize && taken[slot]; ++probe)
            slot = (slot + 1) % kPaletteSize;
        taken[slot] = true; // beyond six GPUs colours repeat
        colors.insert(gpu, kPalette[slot]);
    }
    return colors;
}

int PlotsPage::labelStep(int bars, int widthPx)
{
    constexpr int kLabelWidthPx = 72; // an 8-character id and an operator name, in the default font
    const int fit = std::max(1, widthPx / kLabelWidthPx);
    return std::max(1, (bars + fit - 1) / fit);
}

QColor PlotsPage::gpuColor(const QString &gpu) const
{
    return m_gpuColors.value(gpu, kPalette[0]);
}

void PlotsPage::buildSpeedupBars()
{
    QCustomPlot *plot = m_plots[SpeedupBarsPlot];
    resetPlot(plot);
    if (m_data.candidateIds.isEmpty()) {
        showNote(plot, tr("No correct evaluations yet."));
        plot->rescaleAxes();
        return;
    }
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    QVector<double> keys;
    // The axes span the plot's width less their margins; the axis rect's own width is that of the last replot,
    // which may have been laid out while the legend row above was empty.
    const QMargins margins = plot->axisRect()->margins();
    const int step =
        labelStep(int(m_data.candidateLabels.size()), plot->viewport().width() - margins.left() - margins.right());
    for (int i = 0; i < m_data.candidateLabels.size(); ++i) {
        keys << i + 1;
        if (i % step == 0) // the others are named by their tooltips
            ticker->addTick(i + 1, m_data.candidateLabels.at(i));
    }
    plot->xAxis->setTicker(ticker);
    qDeleteAll(plot->findChildren<QCPBarsGroup *>());
    auto group = new QCPBarsGroup(plot);
    const bool discounted =
        std::any_of(m_data.discounted.begin(), m_data.discounted.end(), [](double s) { return s > 0; });
    const double width = 0.8 / std::max<qsizetype>(1, m_data.gpus.size() + (discounted ? 1 : 0));
    double top = 1, bottom = 1;
    for (int g = 0; g < m_data.gpus.size(); ++g) {
        auto bars = new QCPBars(plot->xAxis, plot->yAxis);
        bars->setName(m_data.gpus.at(g));
        bars->setWidth(width);
        bars->setBarsGroup(group);
        bars->setPen(QPen(gpuColor(m_data.gpus.at(g)).darker(130)));
        bars->setBrush(gpuColor(m_data.gpus.at(g)));
        const std::vector<double> &speedups = m_data.speedups[std::size_t(g)];
        bars->setData(keys, QVector<double>(speedups.begin(), speedups.end()), true);
        QStringList tips;
        for (int c = 0; c < m_data.candidateIds.size(); ++c) {
            const double speedup = speedups[std::size_t(c)];
            tips << (speedup > 0
                         ? tr("%1 on %2: %3")
                               .arg(Format::shortId(m_data.candidateIds.at(c).toStdString()), m_data.gpus.at(g),
                                    Format::speedup(speedup))
                         : tr("%1: not measured correct on %2")
                               .arg(Format::shortId(m_data.candidateIds.at(c).toStdString()), m_data.gpus.at(g)));
            top = std::max(top, speedup);
            if (speedup > 0)
                bottom = std::min(bottom, speedup);
        }
        m_tips.insert(bars, tips);
    }
    addDiscountedBars(plot, group, keys, width);
    const double left = 0.4, right = m_data.candidateIds.size() + 0.6;
    top = std::max(top, addInductorLines(plot, left, right));
    // The 1x line: above it the kernel beats PyTorch.
    auto parity = new QCPItemStraightLine(plot);
    parity->point1->setCoords(0, 1);
    parity->point2->setCoords(1, 1);
    parity->setPen(QPen(palette().color(QPalette::Text), 1, Qt::DashLine));
    plot->legend->setVisible(m_data.gpus.size() > 0);
    plot->xAxis->setRange(left, right);
    setSpeedupAxis(plot, bottom, top);
}

// Linear from 0, or logarithmic around 1x (bars then grow up or down from 1x: faster or slower than eager).
void PlotsPage::setSpeedupAxis(QCustomPlot *plot, double bottom, double top)
{
    if (!m_logScale->isChecked()) {
        plot->yAxis->setRange(0, top * 1.15);
        return;
    }
    plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    for (int i = 0; i < plot->plottableCount(); ++i)
        if (auto *bars = qobject_cast<QCPBars *>(plot->plottable(i)))
            bars->setBaseValue(1);
    plot->yAxis->setRange(std::min(bottom, 1.0) / 1.3, std::max(top, 1.0) * 1.3);
}

// Rejected and impossibly fast kernels: grey and hatched beside the GPUs' bars, and not in the axis range (a
// rejected 90x kernel would flatten every honest bar); the tooltip gives the number and the reason.
void PlotsPage::addDiscountedBars(QCustomPlot *plot, QCPBarsGroup *group, const QVector<double> &keys, double width)
{
    if (std::none_of(m_data.discounted.begin(), m_data.discounted.end(), [](double speedup) { return speedup > 0; }))
        return;
    auto bars = new QCPBars(plot->xAxis, plot->yAxis);
    bars->setName(tr("Rejected or flagged (not to scale)"));
    bars->setWidth(width);
    bars->setBarsGroup(group);
    const QColor grey = palette().color(QPalette::Disabled, QPalette::Text);
    bars->setPen(QPen(grey));
    bars->setBrush(QBrush(grey, Qt::BDiagPattern));
    bars->setData(keys, QVector<double>(m_data.discounted.begin(), m_data.discounted.end()), true);
    QStringList tips;
    for (int c = 0; c < m_data.candidateIds.size(); ++c) {
        const QString reason =
            m_data.discountReasons.value(c) == QLatin1String("rejected") ? tr("rejected") : tr("flagged impossible");
        tips << tr("%1: %2, %3")
                    .arg(Format::shortId(m_data.candidateIds.at(c).toStdString()),
                         Format::speedup(m_data.discounted[std::size_t(c)]), reason);
    }
    m_tips.insert(bars, tips);
}

double PlotsPage::addInductorLines(QCustomPlot *plot, double left, double right)
{
    double top = 0;
    for (std::size_t g = 0; g < m_data.inductor.size() && int(g) < m_data.gpus.size(); ++g) {
        const PlotsData::InductorReference &reference = m_data.inductor[g];
        if (reference.speedupOverEager <= 0)
            continue;
        const QString gpu = m_data.gpus.at(int(g));
        auto line = addReferenceLine(plot, tr("Inductor on %1").arg(gpu), gpuColor(gpu), left, right,
                                     reference.speedupOverEager);
        const QString tip = tr("torch.compile (Inductor) on %1: %2 over eager (%3); above this line a kernel "
                               "beats Inductor too")
                                .arg(gpu, Format::speedup(reference.speedupOverEager), reference.method);
        m_tips.insert(line, {tip, tip});
        top = std::max(top, reference.speedupOverEager);
    }
    return top;
}

void PlotsPage::buildProgress()
{
    QCustomPlot *plot = m_plots[ProgressPlot];
    resetPlot(plot);
    if (m_data.progress.empty()) {
        showNote(plot, tr("Nothing evaluated yet."));
        plot->rescaleAxes();
        return;
    }
    double top = 1, bottom = 1, right = 1;
    for (std::size_t g = 0; g < m_data.progress.size(); ++g) {
        const PlotsData::Progress &progress = m_data.progress[g];
        auto graph = plot->addGraph();
        graph->setName(progress.gpu);
        graph->setPen(QPen(gpuColor(progress.gpu), 2));
        graph->setLineStyle(QCPGraph::lsStepLeft);
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
        graph->setData(QVector<double>(progress.evaluated.begin(), progress.evaluated.end()),
                       QVector<double>(progress.bestSpeedup.begin(), progress.bestSpeedup.end()), true);
        QStringList tips;
        for (std::size_t i = 0; i < progress.evaluated.size(); ++i) {
            tips << tr("%1: best %2 after %3 candidates")
                        .arg(progress.gpu, Format::speedup(progress.bestSpeedup[i]))
                        .arg(progress.evaluated[i]);
            top = std::max(top, progress.bestSpeedup[i]);
            if (progress.bestSpeedup[i] > 0)
                bottom = std::min(bottom, progress.bestSpeedup[i]);
        }
        right = std::max(right, progress.evaluated.empty() ? 1.0 : progress.evaluated.back());
        m_tips.insert(graph, tips);
    }
    top = std::max(top, addInductorLines(plot, 0.5, right + 0.5));
    plot->legend->setVisible(true);
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    plot->xAxis->setRange(0.5, right + 0.5);
    setSpeedupAxis(plot, bottom, top);
}

void PlotsPage::buildDistribution()
{
    QCustomPlot *plot = m_plots[DistributionPlot];
    resetPlot(plot);
    if (m_data.distributions.empty()) {
        showNote(plot, m_data.candidateId.isEmpty() ? tr("Select a kernel.") : tr("The kernel has no timing samples."));
        plot->rescaleAxes();
        return;
    }
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    // Outlines, whiskers and medians in the palette's text colour: QCustomPlot's black vanishes on a dark palette.
    const QColor ink = palette().color(QPalette::Text);
    const auto boxes = [&](const QString &name, int series) {
        auto box = new QCPStatisticalBox(plot->xAxis, plot->yAxis);
        box->setName(name);
        box->setBrush(seriesColor(series).lighter(150));
        box->setPen(QPen(ink));
        box->setWhiskerPen(QPen(ink, 0, Qt::DashLine));
        box->setWhiskerBarPen(QPen(ink));
        box->setMedianPen(QPen(ink, 2));
        box->setOutlierStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, ink, 5));
        return box;
    };
    auto kernelBoxes = boxes(tr("Kernel"), 0);
    auto referenceBoxes = boxes(tr("Eager PyTorch"), 1);
    const bool withInductor = std::any_of(m_data.distributions.begin(), m_data.distributions.end(),
                                          [](const PlotsData::Distribution &d) { return !d.inductorMs.empty(); });
    QCPStatisticalBox *inductorBoxes = nullptr;
    if (withInductor)
        inductorBoxes = boxes(tr("torch.compile (Inductor)"), 2);
    QStringList kernelTips, referenceTips, inductorTips;
    auto describe = [](const QString &what, const QString &gpu, const BoxStats &stats, std::size_t count) {
        return tr("%1 on %2: median %3 ms, IQR %4–%5 ms, %6 samples")
            .arg(what, gpu, Format::ms(stats.median), Format::ms(stats.lowerQuartile), Format::ms(stats.upperQuartile))
            .arg(count);
    };
    auto addBox = [](QCPStatisticalBox *boxes, double key, const BoxStats &stats) {
        boxes->addData(key, stats.minimum, stats.lowerQuartile, stats.median, stats.upperQuartile, stats.maximum,
                       stats.outliers);
    };
    const int perGpu = withInductor ? 3 : 2;
    double key = 1;
    for (const PlotsData::Distribution &distribution : m_data.distributions) {
        ticker->addTick(key + (perGpu - 1) / 2.0, distribution.gpu);
        if (!distribution.candidateMs.empty()) {
            const BoxStats stats = boxStats(distribution.candidateMs);
            addBox(kernelBoxes, key, stats);
            kernelTips << describe(tr("Kernel"), distribution.gpu, stats, distribution.candidateMs.size());
        }
        if (!distribution.baselineMs.empty()) {
            const BoxStats stats = boxStats(distribution.baselineMs);
            addBox(referenceBoxes, key + 1, stats);
            referenceTips << describe(tr("Reference (eager PyTorch)"), distribution.gpu, stats,
                                      distribution.baselineMs.size());
        }
        if (inductorBoxes && !distribution.inductorMs.empty()) {
            const BoxStats stats = boxStats(distribution.inductorMs);
            addBox(inductorBoxes, key + 2, stats);
            inductorTips << describe(tr("torch.compile (Inductor)"), distribution.gpu, stats,
                                     distribution.inductorMs.size());
        }
        key += perGpu + 1;
    }
    if (inductorBoxes)
        m_tips.insert(inductorBoxes, inductorTips);
    m_tips.insert(kernelBoxes, kernelTips);
    m_tips.insert(referenceBoxes, referenceTips);
    plot->xAxis->setTicker(ticker);
    plot->legend->setVisible(true);
    plot->rescaleAxes();
    plot->xAxis->setRange(0, key - 1);
    const QCPRange y = plot->yAxis->range();
    plot->yAxis->setRange(0, y.upper * 1.2);
}

void PlotsPage::buildRoofline()
{
    QCustomPlot *plot = m_plots[RooflinePlot];
    resetPlot(plot);
    if (m_data.roofline.empty()) {
        showNote(plot, m_data.candidateId.isEmpty() ? tr("Select a kernel.")
                                                    : tr("No roofline: %1").arg(m_data.rooflineNote));
        plot->rescaleAxes();
        return;
    }
    plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
    plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    plot->xAxis->setNumberFormat(QStringLiteral("gb"));
    plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());

    double minX = 1e9, maxX = 0, minY = 1e12, maxY = 0;
    for (const PlotsData::RooflinePoint &point : m_data.roofline) {
        const double x = std::max(point.intensity, 1e-3);
        minX = std::min(minX, x);
        maxX = std::max(maxX, x);
        // Keep the roof under the point in view too: the gap between them is the story.
        minY = std::min({minY, std::max(point.achievedGflops, 1e-3), std::max(point.bandwidthGBs * x, 1e-3)});
        maxY = std::max({maxY, point.achievedGflops, point.peakGflops});
    }
    const double left = minX / 100, right = std::max(maxX * 100, 100.0);
    for (std::size_t g = 0; g < m_data.roofline.size(); ++g) {
        const PlotsData::RooflinePoint &point = m_data.roofline[g];
        const QColor color = gpuColor(point.gpu);
        // The roof: bandwidth-bound slope up to the ridge, then the compute peak (when known).
        QVector<double> xs, ys;
        const int steps = 60;
        for (int i = 0; i <= steps; ++i) {
            const double x = left * std::pow(right / left, double(i) / steps);
            double y = point.bandwidthGBs * x;
            if (point.peakGflops > 0)
                y = std::min(y, point.peakGflops);
            xs << x;
            ys << y;
        }
        auto roof = plot->addGraph();
        roof->setName(tr("%1 roof").arg(point.gpu));
        roof->setPen(QPen(color, 1.5, Qt::DashLine));
        roof->setData(xs, ys, true);
        QStringList roofTips;
        for (int i = 0; i <= steps; ++i)
            roofTips << tr("%1: %2 GB/s measured bandwidth, %3 GFLOP/s peak")
                            .arg(point.gpu, Format::number(point.bandwidthGBs),
                                 point.peakGflops > 0 ? Format::number(point.peakGflops) : tr("unknown"));
        m_tips.insert(roof, roofTips);

        auto dot = plot->addGraph();
        dot->setName(tr("Kernel on %1").arg(point.gpu));
        dot->setLineStyle(QCPGraph::lsNone);
        dot->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, 10));
        dot->addData(std::max(point.intensity, 1e-3), std::max(point.achievedGflops, 1e-3));
        QString tip = tr("%1: %2 ms → %3 GB/s (%4% of measured bandwidth), %5 GFLOP/s")
                          .arg(point.gpu, Format::ms(point.medianMs), Format::number(point.achievedGBs))
                          .arg(Format::number(100 * point.achievedGBs / std::max(point.bandwidthGBs, 1e-9), 3))
                          .arg(Format::number(point.achievedGflops));
        if (point.peakGflops > 0)
            tip += tr(" (%1% of peak)").arg(Format::number(100 * point.achievedGflops / point.peakGflops, 3));
        if (point.achievedGBs > point.bandwidthGBs)
            tip += QLatin1Char('\n') + tr("Faster than the memory system allows: the timing cannot be right.");
        m_tips.insert(dot, {tip});
        maxY = std::max(maxY, point.bandwidthGBs * maxX);
    }
    // The legend goes top left: above the roof, where no honest kernel's dot can lie (bottom right it hid the
    // dots of memory-bound kernels near the ridge).
    plot->legend->setVisible(true);
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    plot->xAxis->setRange(left, right);
    plot->yAxis->setRange(minY / 10, maxY * 10);
}

QString PlotsPage::toolTipFor(Plot which, QCPAbstractPlottable *plottable, int dataIndex) const
{
    if (!plottable || plottable->parentPlot() != m_plots[which])
        return {};
    return m_tips.value(plottable).value(dataIndex);
}

void PlotsPage::showToolTip(Plot which, const QPoint &pos)
{
    QCustomPlot *plot = m_plots[which];
    int dataIndex = -1;
    QCPAbstractPlottable *plottable = plot->plottableAt(pos, false, &dataIndex);
    const QString tip = toolTipFor(which, plottable, dataIndex);
    if (tip.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(plot->mapToGlobal(pos), tip, plot);
}

bool PlotsPage::exportPlot(Plot which, const QString &path, QString *error) const
{
    QCustomPlot *plot = m_plots[which];
    const bool pdf = QFileInfo(path).suffix().compare(QLatin1String("pdf"), Qt::CaseInsensitive) == 0;
    const int width = std::max(plot->width(), 640);
    const int height = std::max(plot->height(), 420);
    const bool ok = pdf ? plot->savePdf(path, width, height) : plot->savePng(path, width, height, 2.0);
    if (!ok && error)
        *error = tr("The plot could not be written to \"%1\".").arg(QDir::toNativeSeparators(path));
    return ok;
}

void PlotsPage::chooseExport(Plot which)
{
    QString path =
        QFileDialog::getSaveFileName(this, tr("Export Plot"), QString(), tr("PNG image (*.png);;PDF document (*.pdf)"));
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".png");
    QString error;
    if (!exportPlot(which, path, &error))
        m_status->setText(error);
}

} // namespace kx::ui
