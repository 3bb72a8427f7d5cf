// Lineage layout benchmark: lays out generated lineages (up to 10,000 nodes, 8 children per generation, a quarter
// of them crossovers, mixed outcomes) and prints a Markdown table of layout, scene build, relayout and paint
// times. Run by tests/bench/bench_lineage_layout.sh; a measurement, not a test.
#include "ui/lineage/lineagegraph.h"
#include "ui/lineage/lineagelayout.h"
#include "ui/lineage/lineagescene.h"
#include "ui/lineage/lineageview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <QSysInfo>
#include <QThread>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

using namespace kx;
using namespace kx::ui;

namespace {

LineageGraph generate(int nodes, unsigned seed)
{
    std::mt19937 random(seed);
    LineageGraph graph;
    const EvalStatus outcomes[] = {EvalStatus::Correct,   EvalStatus::Correct,      EvalStatus::Correct,
                                   EvalStatus::Incorrect, EvalStatus::CompileError, EvalStatus::Timeout};
    for (int i = 0; i < nodes; ++i) {
        LineageNode node;
        node.id = QStringLiteral("%1").arg(i, 12, 16, QLatin1Char('0'));
        node.generation = i == 0 ? 0 : 1 + (i - 1) / 8;
        node.operatorName = i == 0 ? QStringLiteral("translate") : QStringLiteral("mutate-block");
        if (i > 0) {
            // Parents among the last two generations, as an elite would pick them.
            const int lo = std::max(0, i - 24);
            const int hi = std::max(0, 1 + (node.generation - 1) * 8 - 1);
            std::uniform_int_distribution<int> pick(std::min(lo, hi), hi);
            node.parentIds << graph.node(pick(random)).id;
            if (random() % 4 == 0) {
                const QString other = graph.node(pick(random)).id;
                if (other != node.parentIds.first()) {
                    node.parentIds << other;
                    node.operatorName = QStringLiteral("crossover");
                }
            }
        }
        const EvalStatus status = outcomes[random() % 6];
        node.statusByGpu.insert(QStringLiteral("GPU"), status);
        if (status == EvalStatus::Correct)
            node.speedupByGpu.insert(QStringLiteral("GPU"), 0.5 + (random() % 1000) / 100.0);
        graph.addNode(node);
    }
    return graph;
}

double medianMs(std::vector<double> samples)
{
    std::sort(samples.begin(), samples.end());
    return samples.empty() ? 0 : samples[samples.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QString commit = QStringLiteral("unknown");
    const QStringList args = app.arguments();
    if (const qsizetype at = args.indexOf(QStringLiteral("--commit")); at >= 0 && at + 1 < args.size())
        commit = args.at(at + 1);
    constexpr int kRepeats = 5;

    std::printf("%s, %s, %d cores; commit %s. Median of %d runs, milliseconds.\n\n",
                qPrintable(QSysInfo::prettyProductName()), qPrintable(QSysInfo::currentCpuArchitecture()),
                QThread::idealThreadCount(), qPrintable(commit), kRepeats);
    std::printf(
        "| nodes | edges | layout | scene build | relayout (items kept) | restyle | paint, fitted | paint, 100%% |\n");
    std::printf(
        "|------:|------:|-------:|------------:|----------------------:|--------:|--------------:|------------:|\n");
    for (int nodes : {1000, 5000, 10000}) {
        const LineageGraph graph = generate(nodes, 42);
        int edges = 0;
        for (int i = 0; i < graph.size(); ++i)
            edges += int(graph.parents(i).size());
        std::vector<double> layoutMs, buildMs, relayoutMs, restyleMs, paintFitMs, paintFullMs;
        for (int r = 0; r < kRepeats; ++r) {
            QElapsedTimer timer;
            timer.start();
            const LineageLayout layout = layoutLineage(graph);
            layoutMs.push_back(timer.nsecsElapsed() / 1e6);

            LineageScene scene;
            LineageHighlights highlights;
            highlights.best = graph.bestNode();
            highlights.path = graph.pathFromRoot(highlights.best);
            timer.restart();
            scene.applyLayout(graph, layout);
            scene.applyLook(graph, highlights);
            buildMs.push_back(timer.nsecsElapsed() / 1e6);

            timer.restart();
            scene.applyLayout(graph, layoutLineage(graph));
            relayoutMs.push_back(timer.nsecsElapsed() / 1e6);

            timer.restart();
            scene.applyLook(graph, highlights);
            restyleMs.push_back(timer.nsecsElapsed() / 1e6);

            // A frame of the view: everything fitted (outline level of detail) and a 1:1 close-up.
            LineageView view;
            view.setScene(&scene);
            view.resize(1200, 800);
            QImage image(view.viewport()->size(), QImage::Format_ARGB32_Premultiplied);
            view.fit();
            timer.restart();
            {
                QPainter painter(&image);
                view.render(&painter);
            }
            paintFitMs.push_back(timer.nsecsElapsed() / 1e6);
            view.resetTransform();
            view.centerOn(scene.sceneRect().center());
            timer.restart();
            {
                QPainter painter(&image);
                view.render(&painter);
            }
            paintFullMs.push_back(timer.nsecsElapsed() / 1e6);
        }
        std::printf("| %d | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", nodes, edges, medianMs(layoutMs),
                    medianMs(buildMs), medianMs(relayoutMs), medianMs(restyleMs), medianMs(paintFitMs),
                    medianMs(paintFullMs));
    }
    std::printf("\nlayout: layoutLineage() alone (runs on a pool thread in the application). scene build: items "
                "created and coloured. relayout: a new layout applied to existing items, as during a live run.\n");
    return 0;
}
