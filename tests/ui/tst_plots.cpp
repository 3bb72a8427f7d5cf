// The plots page: data prepared from an archive, the widgets built from it (torch.compile's speedup per GPU as
// the line to beat, the baselines' samples beside the kernel's), tooltips and export.
#include "archivefixture.h"
#include "screenshotsupport.h"
#include "ui/common/archivereader.h"
#include "ui/common/format.h"
#include "ui/plots/plotsdata.h"
#include "ui/plots/plotspage.h"
#include "ui/plots/portabilitytable.h"
#include "ui/window/samplearchive.h"

#include "core/archive/archive.h"
#include "core/archive/archivejson.h"

#include <nlohmann/json.hpp>
#include <qcustomplot.h>

#include <QCheckBox>
#include <QFile>
#include <QImage>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace kx;
using namespace kx::ui;

namespace {

const QString kH100 = QStringLiteral("NVIDIA H100 80GB HBM3");
const QString kH200 = QStringLiteral("NVIDIA H200");
const char kTranslated[] = "adf9f184100be56fb77740bb17870407d2917ee0e59456e5184a120f48e8e68e";
const char kCrossover[] = "e8fbd32f7a1f58b1aa0d14118d7d47b10721acd5d22040e47e5925b3194f450c";
const char kImpossible[] = "fdd3e059";

bool importSample(const QString &path)
{
    std::ifstream in(KX_TEST_DATA_DIR "/sample-archive.json");
    auto archive = Archive::open(QFile::encodeName(path).toStdString());
    if (!in || !archive)
        return false;
    return bool(importArchive(**archive, nlohmann::json::parse(in)));
}

std::unique_ptr<Archive> openArchive(const QString &path, ArchiveMode mode = ArchiveMode::ReadOnly)
{
    auto archive = Archive::open(QFile::encodeName(path).toStdString(), mode);
    return archive ? std::move(*archive) : nullptr;
}

void compareSeries(const std::vector<double> &actual, const std::vector<double> &expected)
{
    QCOMPARE(actual.size(), expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i)
        QVERIFY2(qFuzzyCompare(actual[i] + 1, expected[i] + 1),
                 qPrintable(QStringLiteral("element %1: %2 != %3").arg(i).arg(actual[i]).arg(expected[i])));
}

} // namespace

class TestPlots : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void speedupsPerCandidateAndGpu();
    void portabilityTable();
    void opPlotsStayWhileOnlyTheKernelChanges();
    void rooflineLegendLeavesTheDotsFree();
    void barAndRuntimeLegendsLeaveTheAxesFree();
    void bestSpeedupSkipsImpossibleAndRejected();
    void distributionAndRoofline();
    void workloadErrors();
    void runScope();
    void inductorReferenceAndSamples();
    void pageDrawsInductorReference();
    void pageBuildsPlotsWithToolTips();
    void exportsPngAndPdf();
    void gpuColoursFollowNamesAndBarNamesThinOut();
    void boxPlotsUseThePalettesInk();
    void cardsOfOneModelAreToldApart();

private:
    QTemporaryDir m_dir;
    QString m_path;
    std::string m_impossible;
};

void TestPlots::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    m_path = m_dir.filePath(QStringLiteral("sample.kxdb"));
    QVERIFY(importSample(m_path));
    m_impossible = *openArchive(m_path)->resolveCandidateId(kImpossible);
}

void TestPlots::speedupsPerCandidateAndGpu()
{
    auto archive = openArchive(m_path);
    const PlotsData data = PlotsData::prepare(*archive, {QStringLiteral("relu"), std::nullopt, {}});
    QCOMPARE(data.ops, QStringList{QStringLiteral("relu")});
    QCOMPARE(data.opName, QStringLiteral("relu"));
    QCOMPARE(data.gpus, (QStringList{kH100, kH200}));
    // The incorrect candidate has no bar; the others in creation order.
    QCOMPARE(data.candidateIds.size(), 4);
    QCOMPARE(data.candidateIds.first(), QString::fromLatin1(kTranslated));
    QCOMPARE(data.candidateIds.at(2), QString::fromLatin1(kCrossover));
    QCOMPARE(data.candidateIds.last(), QString::fromStdString(m_impossible));
    QCOMPARE(data.candidateLabels.size(), 4);
    QVERIFY(data.candidateLabels.first().contains(QLatin1String("translate")));
    QCOMPARE(data.speedups.size(), std::size_t(2));
    // The 90x kernel is flagged impossible: it does not count towards the best, so it stands apart.
    compareSeries(data.speedups[0], {0.9839, 1.0488, 1.0529, 0.0});
    compareSeries(data.speedups[1], {0.995, 1.0584, 1.0814, 0.0});
    compareSeries(data.discounted, {0, 0, 0, 90.0});
    QCOMPARE(data.discountReasons.last(), QStringLiteral("flagged impossible"));
    QCOMPARE(data.eagerMs.size(), std::size_t(2));
    QVERIFY(data.eagerMs[0] > 0 && data.eagerMs[1] > 0);
}

// The same kernels on every GPU: eager's time and Inductor per GPU, then kernels on the most GPUs first, best
// first, each with the spread between its best and worst GPU; a kernel with no honest result has no row.
void TestPlots::portabilityTable()
{
    const PlotsData data = PlotsData::prepare(*openArchive(m_path), {QStringLiteral("relu"), std::nullopt, {}});
    PortabilityTable table;
    table.showData(data);
    QCOMPARE(table.columnCount(), 4);
    QCOMPARE(table.horizontalHeaderItem(1)->text(), kH100);
    QCOMPARE(table.horizontalHeaderItem(2)->text(), kH200);
    QCOMPARE(table.rowCount(), PortabilityTable::kReferenceRows + 3);
    QCOMPARE(table.item(0, 1)->text(), Format::ms(data.eagerMs[0]));
    const int first = PortabilityTable::kReferenceRows;
    QCOMPARE(table.item(first, 0)->data(Qt::UserRole).toString(), QString::fromLatin1(kCrossover));
    QCOMPARE(table.item(first, 1)->text(), Format::speedup(1.0529));
    QCOMPARE(table.item(first, 2)->text(), Format::speedup(1.0814));
    QCOMPARE(table.item(first, 3)->text(), QStringLiteral("2.7%")); // 1.0814 / 1.0529
    QCOMPARE(table.item(first + 2, 0)->data(Qt::UserRole).toString(), QString::fromLatin1(kTranslated));

    // On the page, below the plots.
    PlotsPage page;
    QSignalSpy loaded(&page, &PlotsPage::loaded);
    page.setArchive(archiveRef(m_path));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    QCOMPARE(page.portabilityTable()->rowCount(), table.rowCount());
}

void TestPlots::bestSpeedupSkipsImpossibleAndRejected()
{
    auto archive = openArchive(m_path);
    PlotsData data = PlotsData::prepare(*archive, {QStringLiteral("relu"), std::nullopt, {}});
    QCOMPARE(data.progress.size(), std::size_t(2));
    // H100 in time order: 0.98, 1.05, incorrect, 1.053, 90x flagged impossible (does not count).
    QCOMPARE(data.progress[0].gpu, kH100);
    compareSeries(data.progress[0].evaluated, {1, 2, 3, 4, 5});
    compareSeries(data.progress[0].bestSpeedup, {0.9839, 1.0488, 1.0488, 1.0529, 1.0529});
    compareSeries(data.progress[1].bestSpeedup, {0.995, 1.0584, 1.0814});

    // A rejected kernel no longer counts either.
    const QString copy = m_dir.filePath(QStringLiteral("rejected.kxdb"));
    QVERIFY(importSample(copy));
    {
        auto writable = openArchive(copy, ArchiveMode::ReadWrite);
        Transaction tx = writable->begin();
        Verdict verdict;
        verdict.candidateId = kCrossover;
        verdict.accepted = false;
        verdict.reasonCode = "not-general";
        writable->addVerdict(tx, verdict);
        tx.commit();
    }
    data = PlotsData::prepare(*openArchive(copy), {QStringLiteral("relu"), std::nullopt, {}});
    compareSeries(data.progress[0].bestSpeedup, {0.9839, 1.0488, 1.0488, 1.0488, 1.0488});
    compareSeries(data.progress[1].bestSpeedup, {0.995, 1.0584, 1.0584});
    // Its bars move apart too: the best of its results, with the reason.
    compareSeries(data.speedups[0], {0.9839, 1.0488, 0.0, 0.0});
    compareSeries(data.discounted, {0, 0, 1.0814, 90.0});
    QCOMPARE(data.discountReasons.at(2), QStringLiteral("rejected"));
}

void TestPlots::distributionAndRoofline()
{
    auto archive = openArchive(m_path);
    const PlotsData data = PlotsData::prepare(*archive, {{}, std::nullopt, QString::fromStdString(m_impossible)});
    // The op follows the candidate.
    QCOMPARE(data.opName, QStringLiteral("relu"));
    QCOMPARE(data.candidateId, QString::fromStdString(m_impossible));
    QCOMPARE(data.distributions.size(), std::size_t(1));
    QCOMPARE(data.distributions[0].gpu, kH100);
    QCOMPARE(data.distributions[0].candidateMs.size(), std::size_t(12));
    QCOMPARE(data.distributions[0].baselineMs.size(), std::size_t(12));

    QCOMPARE(data.roofline.size(), std::size_t(1));
    const PlotsData::RooflinePoint &point = data.roofline[0];
    // 8*N bytes and N FLOPs at N = 67108864, in 0.0021 ms.
    QCOMPARE(point.gpu, kH100);
    QCOMPARE(point.bandwidthGBs, 3010.0);
    QVERIFY(qFuzzyCompare(point.peakGflops, 66900.0));
    QVERIFY(qFuzzyCompare(point.intensity, 0.125));
    QVERIFY(qFuzzyCompare(point.achievedGBs, 536870912.0 / 2.1e-6 / 1e9));
    QVERIFY(qFuzzyCompare(point.achievedGflops, 67108864.0 / 2.1e-6 / 1e9));
    QVERIFY(point.achievedGBs > point.bandwidthGBs); // Why it is flagged impossible.

    // Two GPUs for the crossover kernel.
    const PlotsData crossover = PlotsData::prepare(*archive, {{}, std::nullopt, QString::fromLatin1(kCrossover)});
    QCOMPARE(crossover.roofline.size(), std::size_t(2));
    QCOMPARE(crossover.distributions.size(), std::size_t(2));
    QCOMPARE(crossover.distributions[1].gpu, kH200);
}

void TestPlots::workloadErrors()
{
    Op op;
    op.shapeSets = {{{"N", 10}}};
    op.bytesMovedExpr = "4 * N";
    op.flopsExpr = "2 * M";
    const Workload workload = Workload::of(op);
    QCOMPARE(workload.bytes, std::optional<std::int64_t>(40));
    QVERIFY(!workload.flops);
    QVERIFY(!workload.error.isEmpty());
    QVERIFY(!Workload::of(Op{}).bytes);
    QVERIFY(!Workload::of(Op{}).error.isEmpty());
}

// A new kernel of the same op: only its runtime and roofline are read (the op's plots took seconds at 30k
// kernels); after reload() everything is, and new results show.
void TestPlots::opPlotsStayWhileOnlyTheKernelChanges()
{
    const QString path = m_dir.filePath(QStringLiteral("kept.kxdb"));
    QVERIFY(importSample(path));
    PlotsPage page;
    QSignalSpy loaded(&page, &PlotsPage::loaded);
    page.setArchive(archiveRef(path));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    page.showCandidate(QString::fromLatin1(kTranslated));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 10000);
    QCOMPARE(page.data().gpus, (QStringList{kH100, kH200}));

    // A result on a third GPU arrives for the crossover kernel.
    {
        auto archive = openArchive(path, ArchiveMode::ReadWrite);
        Evaluation evaluation = archive->evaluations(kCrossover).front();
        evaluation.id = 0;
        evaluation.gpu.name = "NVIDIA B200";
        evaluation.gpu.uuid = "GPU-b200";
        evaluation.baselines.clear();
        Transaction tx = archive->begin();
        archive->addEvaluation(tx, evaluation);
        tx.commit();
    }
    page.showCandidate(QString::fromLatin1(kCrossover));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 3, 10000);
    QCOMPARE(page.data().candidateId, QString::fromLatin1(kCrossover));
    QCOMPARE(page.data().gpus, (QStringList{kH100, kH200})); // the op's plots were kept
    const bool distributionOnB200 = std::any_of(page.data().distributions.begin(), page.data().distributions.end(),
                                                [](const auto &d) { return d.gpu == QLatin1String("NVIDIA B200"); });
    QVERIFY(distributionOnB200); // the kernel's own part was read

    page.reload();
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 4, 10000);
    QCOMPARE(page.data().gpus, (QStringList{QStringLiteral("NVIDIA B200"), kH100, kH200}));
}

// A memory-bound kernel near the ridge (the sample archive's fused chain on an H200, at about the measured
// bandwidth): its dot stays visible, the legend sits above the roof where no honest kernel lies.
void TestPlots::rooflineLegendLeavesTheDotsFree()
{
    const QString path = m_dir.filePath(QStringLiteral("real.kxdb"));
    {
        std::ifstream in(QFile::encodeName(SampleArchive::exportFile()).toStdString());
        QVERIFY(in);
        auto archive = Archive::open(QFile::encodeName(path).toStdString());
        QVERIFY(archive && importArchive(**archive, nlohmann::json::parse(in)));
    }
    PlotsPage page;
    page.resize(940, 560); // as in a 1440 x 900 window with its docks
    page.show();
    QSignalSpy loaded(&page, &PlotsPage::loaded);
    page.setArchive(archiveRef(path));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    const std::string chain = *openArchive(path)->resolveCandidateId("d634353b45ef");
    page.showCandidate(QString::fromStdString(chain));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 10000);
    QCustomPlot *roofline = page.plot(PlotsPage::RooflinePlot);
    roofline->replot();
    QCOMPARE(roofline->graphCount(), 2);
    const QCPGraphData dot = *roofline->graph(1)->data()->begin();
    const QPoint pixel(int(roofline->xAxis->coordToPixel(dot.key)), int(roofline->yAxis->coordToPixel(dot.value)));
    QVERIFY(roofline->axisRect()->rect().contains(pixel));
    QVERIFY2(!roofline->legend->outerRect().contains(pixel), "the legend covers the kernel's dot");
}

// Bars and boxes can fill any corner of their axes: those two legends sit in a row of their own above them.
void TestPlots::barAndRuntimeLegendsLeaveTheAxesFree()
{
    PlotsPage page;
    page.resize(940, 560);
    page.show();
    QSignalSpy loaded(&page, &PlotsPage::loaded);
    page.setArchive(archiveRef(m_path));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    page.showCandidate(QString::fromLatin1(kCrossover));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 10000);
    for (const auto which : {PlotsPage::SpeedupBarsPlot, PlotsPage::DistributionPlot}) {
        QCustomPlot *plot = page.plot(which);
        plot->replot();
        QVERIFY(plot->legend->visible());
        QVERIFY(plot->legend->itemCount() >= 2);
        const QRect legend = plot->legend->outerRect();
        QVERIFY2(!legend.intersects(plot->axisRect()->rect()), qPrintable(plot->objectName()));
        QVERIFY(legend.bottom() <= plot->axisRect()->rect().top());
    }
}

void TestPlots::runScope()
{
    auto archive = openArchive(m_path);
    const std::vector<Run> runs = archive->runs("relu");
    QCOMPARE(runs.size(), std::size_t(1));
    const PlotsData data = PlotsData::prepare(*archive, {QStringLiteral("relu"), runs[0].id, {}});
    QCOMPARE(data.runId, std::optional<std::int64_t>(runs[0].id));
    QCOMPARE(data.runs.size(), std::size_t(1));
    QCOMPARE(data.candidateIds.size(), 4);
    // An unknown run falls back to the whole op; an unknown op gives empty series.
    QVERIFY(!PlotsData::prepare(*archive, {QStringLiteral("relu"), 9999, {}}).runId);
    const PlotsData none = PlotsData::prepare(*archive, {QStringLiteral("nope"), std::nullopt, {}});
    QVERIFY(none.candidateIds.isEmpty());
    QVERIFY(none.progress.empty());
}

void TestPlots::inductorReferenceAndSamples()
{
    const QString path = m_dir.filePath(QStringLiteral("baselines.kxdb"));
    const test::BaselineArchive sample = test::BaselineArchive::addTo(path);
    auto archive = openArchive(path);
    const QString a100 = QStringLiteral("NVIDIA A100-SXM4-80GB");
    const PlotsData data = PlotsData::prepare(*archive, {QStringLiteral("layernorm"), std::nullopt, {}});
    QCOMPARE(data.gpus, (QStringList{a100, kH100}));
    QCOMPARE(data.inductor.size(), std::size_t(2));
    // On the A100 torch.compile could not be measured: no line, and why.
    QCOMPARE(data.inductor[0].speedupOverEager, 0.0);
    QCOMPARE(data.inductor[0].note, QString::fromLatin1(test::BaselineArchive::kExportError));
    // On the H100, eager over Inductor in the two measurement pairs (1.0 / 0.4 and 1.0 / 0.5): their median.
    QCOMPARE(data.inductor[1].pairs, 2);
    QVERIFY(qFuzzyCompare(data.inductor[1].speedupOverEager, 2.25));
    QCOMPARE(data.inductor[1].method, QStringLiteral("aoti-package"));
    QVERIFY(data.inductor[1].note.isEmpty());
    compareSeries(data.speedups[1], {2.0, 5.0, 0.0});

    // The runtime distribution: eager's samples come from its measurement (the evaluation keeps none), with
    // Inductor's beside them.
    const PlotsData loses =
        PlotsData::prepare(*archive, {{}, std::nullopt, QString::fromStdString(sample.losesToInductor)});
    QCOMPARE(loses.distributions.size(), std::size_t(1));
    compareSeries(loses.distributions[0].candidateMs, {0.495, 0.5, 0.505});
    compareSeries(loses.distributions[0].baselineMs, {0.98, 0.99, 1.0, 1.01, 1.02});
    compareSeries(loses.distributions[0].inductorMs, {0.392, 0.396, 0.4, 0.404, 0.408});
    const PlotsData failed =
        PlotsData::prepare(*archive, {{}, std::nullopt, QString::fromStdString(sample.inductorFailed)});
    QCOMPARE(failed.distributions[0].baselineMs.size(), std::size_t(5));
    QVERIFY(failed.distributions[0].inductorMs.empty());

    // Older archives have no Inductor time anywhere.
    const PlotsData old = PlotsData::prepare(*openArchive(m_path), {QStringLiteral("relu"), std::nullopt, {}});
    QCOMPARE(old.inductor.size(), std::size_t(2));
    QCOMPARE(old.inductor[0].speedupOverEager, 0.0);
    QCOMPARE(old.inductor[0].pairs, 0);
}

void TestPlots::pageDrawsInductorReference()
{
    const QString path = m_dir.filePath(QStringLiteral("baselines-page.kxdb"));
    const test::BaselineArchive sample = test::BaselineArchive::addTo(path);
    PlotsPage page;
    page.resize(1400, 900);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QSignalSpy loaded(&page, &PlotsPage::loaded);
    page.setArchive(archiveRef(path));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    page.showCandidate(QString::fromStdString(sample.losesToInductor));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 10000);

    const QString lineName = QStringLiteral("Inductor on %1").arg(kH100);
    auto referenceLine = [&](QCustomPlot *plot) -> QCPGraph * {
        for (int i = 0; i < plot->graphCount(); ++i)
            if (plot->graph(i)->name() == lineName)
                return plot->graph(i);
        return nullptr;
    };
    for (PlotsPage::Plot which : {PlotsPage::SpeedupBarsPlot, PlotsPage::ProgressPlot}) {
        QCustomPlot *plot = page.plot(which);
        QCPGraph *line = referenceLine(plot);
        QVERIFY2(line, qPrintable(QStringLiteral("no Inductor line in plot %1").arg(int(which))));
        QCOMPARE(line->dataCount(), 2);
        QVERIFY(qFuzzyCompare(line->data()->at(0)->value, 2.25));
        QVERIFY(qFuzzyCompare(line->data()->at(1)->value, 2.25));
        QVERIFY(plot->yAxis->range().upper > 2.25);
        const QString tip = page.toolTipFor(which, line, 0);
        QVERIFY2(tip.contains(QLatin1String("torch.compile")) && tip.contains(QStringLiteral("2.25×")),
                 qPrintable(tip));
        // None for the A100, where torch.compile could not be measured.
        QCOMPARE(plot->graphCount() - (which == PlotsPage::ProgressPlot ? 2 : 0), 1);
    }
    QCOMPARE(page.plot(PlotsPage::SpeedupBarsPlot)->plottableCount(), 3); // Two bar series and the line.

    QCustomPlot *distribution = page.plot(PlotsPage::DistributionPlot);
    QCOMPARE(distribution->plottableCount(), 3); // Kernel, eager and Inductor boxes.
    QVERIFY(
        page.toolTipFor(PlotsPage::DistributionPlot, distribution->plottable(1), 0).contains(QLatin1String("eager")));
    const QString inductorTip = page.toolTipFor(PlotsPage::DistributionPlot, distribution->plottable(2), 0);
    QVERIFY2(inductorTip.contains(QLatin1String("Inductor")) && inductorTip.contains(QLatin1String("median 0.4000 ms")),
             qPrintable(inductorTip));
}

void TestPlots::pageBuildsPlotsWithToolTips()
{
    PlotsPage page;
    page.resize(1400, 900);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QSignalSpy loaded(&page, &PlotsPage::loaded);
    page.setArchive(archiveRef(m_path));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    page.showCandidate(QString::fromStdString(m_impossible));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 10000);
    QVERIFY(!page.isLoading());

    QCustomPlot *bars = page.plot(PlotsPage::SpeedupBarsPlot);
    QCOMPARE(bars->plottableCount(), 3); // One bar series per GPU, and the rejected or flagged kernels'.
    auto h100 = qobject_cast<QCPBars *>(bars->plottable(0));
    QVERIFY(h100);
    QCOMPARE(h100->name(), kH100);
    QCOMPARE(h100->dataCount(), 4);
    auto discounted = qobject_cast<QCPBars *>(bars->plottable(2));
    QVERIFY(discounted);
    QVERIFY(discounted->name().contains(QLatin1String("not to scale")));
    const QString flaggedTip = page.toolTipFor(PlotsPage::SpeedupBarsPlot, discounted, 3);
    QVERIFY2(flaggedTip.contains(QLatin1String("90")) && flaggedTip.contains(QLatin1String("flagged impossible")),
             qPrintable(flaggedTip));
    QVERIFY(page.toolTipFor(PlotsPage::ProgressPlot, h100, 3).isEmpty()); // Wrong plot.
    // The honest bars set the scale: the flagged 90x kernel does not flatten them.
    QVERIFY2(bars->yAxis->range().upper < 2.0, qPrintable(QString::number(bars->yAxis->range().upper)));

    QCustomPlot *progress = page.plot(PlotsPage::ProgressPlot);
    QCOMPARE(progress->graphCount(), 2);
    QCOMPARE(progress->graph(0)->dataCount(), 5);

    QCustomPlot *distribution = page.plot(PlotsPage::DistributionPlot);
    QCOMPARE(distribution->plottableCount(), 2); // Kernel boxes and reference boxes.
    QVERIFY(page.toolTipFor(PlotsPage::DistributionPlot, distribution->plottable(1), 0)
                .contains(QLatin1String("Reference")));

    QCustomPlot *roofline = page.plot(PlotsPage::RooflinePlot);
    QCOMPARE(roofline->graphCount(), 2); // The roof and the kernel's point.
    QCOMPARE(roofline->xAxis->scaleType(), QCPAxis::stLogarithmic);
    const QString tip = page.toolTipFor(PlotsPage::RooflinePlot, roofline->graph(1), 0);
    QVERIFY2(tip.contains(QLatin1String("Faster than the memory system allows")), qPrintable(tip));

    // Hovering over a bar finds it: the tooltip logic resolves the plottable under the mouse.
    int index = -1;
    const double x = bars->xAxis->coordToPixel(3 - 0.2), y = bars->yAxis->coordToPixel(0.5);
    QCPAbstractPlottable *under = bars->plottableAt(QPointF(x, y), false, &index);
    QCOMPARE(under, static_cast<QCPAbstractPlottable *>(h100));
    QCOMPARE(index, 2);
    test::saveScreenshot(&page, QStringLiteral("plots.png"));

    // A logarithmic speedup axis: bars grow from 1x (up: faster than eager, down: slower), slower kernels stay
    // readable beside fast ones; off again, the axis starts at 0.
    auto *logScale = page.findChild<QCheckBox *>(QStringLiteral("plotsLogScale"));
    QVERIFY(logScale);
    logScale->setChecked(true);
    for (auto which : {PlotsPage::SpeedupBarsPlot, PlotsPage::ProgressPlot}) {
        QCustomPlot *plot = page.plot(which);
        QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLogarithmic);
        QVERIFY(plot->yAxis->range().lower > 0);
        QVERIFY(plot->yAxis->range().lower < 1 && plot->yAxis->range().upper > 1);
    }
    bars = page.plot(PlotsPage::SpeedupBarsPlot);
    QCOMPARE(qobject_cast<QCPBars *>(bars->plottable(0))->baseValue(), 1.0);
    QVERIFY2(bars->yAxis->range().upper < 3.0,
             qPrintable(QString::number(bars->yAxis->range().upper))); // still not flattened
    logScale->setChecked(false);
    QCOMPARE(page.plot(PlotsPage::SpeedupBarsPlot)->yAxis->scaleType(), QCPAxis::stLinear);
    QCOMPARE(page.plot(PlotsPage::SpeedupBarsPlot)->yAxis->range().lower, 0.0);
}

void TestPlots::exportsPngAndPdf()
{
    PlotsPage page;
    page.resize(1200, 800);
    QSignalSpy loaded(&page, &PlotsPage::loaded);
    page.setArchive(archiveRef(m_path));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    const QString png = m_dir.filePath(QStringLiteral("bars.png"));
    const QString pdf = m_dir.filePath(QStringLiteral("progress.pdf"));
    QString error;
    QVERIFY2(page.exportPlot(PlotsPage::SpeedupBarsPlot, png, &error), qPrintable(error));
    QVERIFY2(page.exportPlot(PlotsPage::ProgressPlot, pdf, &error), qPrintable(error));
    QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() >= 640);
    QFile file(pdf);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.read(5).startsWith("%PDF"));
    QVERIFY(file.size() > 1000);
    // A folder that does not exist: an error, no crash.
    QVERIFY(!page.exportPlot(PlotsPage::RooflinePlot, m_dir.filePath(QStringLiteral("no/such/dir/x.png")), &error));
    QVERIFY(error.contains(QLatin1String("x.png")));
}

void TestPlots::gpuColoursFollowNamesAndBarNamesThinOut()
{
    const QString h100 = QStringLiteral("NVIDIA H100 80GB HBM3"), h200 = QStringLiteral("NVIDIA H200");
    const auto both = PlotsPage::gpuColors({h200, h100});
    QCOMPARE(both.size(), 2);
    QVERIFY(both.value(h100) != both.value(h200));
    // Alone, or beside another GPU, each keeps its colour (in this archive and the next).
    QCOMPARE(PlotsPage::gpuColors({h100}).value(h100), both.value(h100));
    QCOMPARE(PlotsPage::gpuColors({h200}).value(h200), both.value(h200));
    QCOMPARE(PlotsPage::gpuColors({QStringLiteral("NVIDIA A100-SXM4-80GB"), h100}).value(h100), both.value(h100));
    // Bar names thin out so they do not overlap: all of a few, every few of many.
    QCOMPARE(PlotsPage::labelStep(4, 700), 1);
    QCOMPARE(PlotsPage::labelStep(9, 700), 1);
    QCOMPARE(PlotsPage::labelStep(30, 700), 4);
    QCOMPARE(PlotsPage::labelStep(30, 0), 30);
    // Six GPUs get six colours.
    QStringList six;
    for (int i = 0; i < 6; ++i)
        six << QStringLiteral("GPU %1").arg(i);
    const auto colors = PlotsPage::gpuColors(six);
    QSet<QRgb> distinct;
    for (const QColor &color : colors)
        distinct.insert(color.rgb());
    QCOMPARE(distinct.size(), 6);
}

// On a dark palette the box plots' outlines, whiskers and medians are drawn in its light text colour.
void TestPlots::boxPlotsUseThePalettesInk()
{
    PlotsPage page;
    QPalette dark = page.palette();
    dark.setColor(QPalette::Base, QColor(30, 30, 30));
    dark.setColor(QPalette::Window, QColor(40, 40, 40));
    dark.setColor(QPalette::Text, QColor(230, 230, 230));
    dark.setColor(QPalette::WindowText, QColor(230, 230, 230));
    page.setPalette(dark);
    QSignalSpy loaded(&page, &PlotsPage::loaded);
    page.setArchive(archiveRef(m_path));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    page.showCandidate(QString::fromStdString(m_impossible));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 10000);
    QCustomPlot *distribution = page.plot(PlotsPage::DistributionPlot);
    QVERIFY(distribution->plottableCount() >= 2);
    for (int i = 0; i < distribution->plottableCount(); ++i) {
        auto boxes = qobject_cast<QCPStatisticalBox *>(distribution->plottable(i));
        QVERIFY(boxes);
        QCOMPARE(boxes->whiskerPen().color(), QColor(230, 230, 230));
        QCOMPARE(boxes->medianPen().color(), QColor(230, 230, 230));
        QCOMPARE(boxes->pen().color(), QColor(230, 230, 230));
    }
}

// Two cards of one model are two GPUs of the plots and the portability table: named by host where they are on
// different machines, by the start of the UUID where they share one; a model with one card keeps its name.
void TestPlots::cardsOfOneModelAreToldApart()
{
    GpuInfo a;
    a.name = "NVIDIA H100 80GB HBM3";
    a.uuid = "GPU-86a0ff3c-d33b-ffa0-b59c-dee460c3e565";
    a.host = "gpu-a";
    GpuInfo b = a;
    b.uuid = "GPU-441e95f2-1090-a28e-4abe-1094275d966b";
    b.host = "gpu-b";
    GpuInfo other;
    other.name = "NVIDIA H200";
    other.uuid = "GPU-1";
    GpuLabels hosts;
    for (const GpuInfo &gpu : {a, b, other, a})
        hosts.add(gpu);
    QCOMPARE(hosts(a), std::string("NVIDIA H100 80GB HBM3 (gpu-a)"));
    QCOMPARE(hosts(b), std::string("NVIDIA H100 80GB HBM3 (gpu-b)"));
    QCOMPARE(hosts(other), std::string("NVIDIA H200"));
    GpuInfo sameMachine = b;
    sameMachine.host = "gpu-a";
    GpuLabels oneMachine;
    oneMachine.add(a);
    oneMachine.add(sameMachine);
    QCOMPARE(oneMachine(a), std::string("NVIDIA H100 80GB HBM3 (gpu-a 86a0ff3c)"));
    QCOMPARE(oneMachine(sameMachine), std::string("NVIDIA H100 80GB HBM3 (gpu-a 441e95f2)"));

    // In an archive: the crossover kernel timed again on a second H200 of another host.
    const QString path = m_dir.filePath(QStringLiteral("cards.kxdb"));
    QVERIFY(importSample(path));
    {
        auto archive = openArchive(path, ArchiveMode::ReadWrite);
        const std::vector<Evaluation> evaluations = archive->evaluations(kCrossover);
        const auto onH200 = std::find_if(evaluations.begin(), evaluations.end(), [](const Evaluation &e) {
            return QString::fromStdString(e.gpu.name) == kH200;
        });
        QVERIFY(onH200 != evaluations.end());
        Evaluation again = *onH200;
        again.id = 0;
        again.gpu.uuid = "GPU-second-h200";
        again.gpu.host = "gpu-b";
        again.speedup = 1.5;
        again.baselines.clear();
        Transaction tx = archive->begin();
        archive->addEvaluation(tx, again);
        tx.commit();
    }
    const PlotsData data = PlotsData::prepare(*openArchive(path), {QStringLiteral("relu"), std::nullopt, {}});
    QCOMPARE(data.gpus.size(), 3);
    QCOMPARE(data.gpus.first(), kH100);
    QVERIFY2(data.gpus.at(1).startsWith(kH200 + QStringLiteral(" ("))
                 && data.gpus.at(2).startsWith(kH200 + QStringLiteral(" (")),
             qPrintable(data.gpus.join(QStringLiteral(", "))));
    QVERIFY(data.gpus.contains(kH200 + QStringLiteral(" (gpu-b)")));
    const int second = int(data.gpus.indexOf(kH200 + QStringLiteral(" (gpu-b)")));
    const int crossover = int(data.candidateIds.indexOf(QString::fromLatin1(kCrossover)));
    QCOMPARE(data.speedups[std::size_t(second)][std::size_t(crossover)], 1.5); // its own column, not merged
}

QTEST_MAIN(TestPlots)
#include "tst_plots.moc"
