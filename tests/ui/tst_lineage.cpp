// The lineage: graph bookkeeping, layered layout, scene items, keyboard navigation, search, path to the best,
// collapsing failed branches, and dropping stale background layouts.
#include "ui/lineage/lineagegraph.h"
#include "ui/lineage/lineagelayout.h"
#include "ui/lineage/lineagenodeitem.h"
#include "ui/lineage/lineagepage.h"
#include "ui/lineage/lineagescene.h"
#include "ui/lineage/lineageview.h"

#include <QClipboard>
#include <QComboBox>
#include <QGuiApplication>
#include <QMenu>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QThreadPool>

#include <random>

using namespace kx;
using namespace kx::ui;

namespace {

constexpr std::int64_t kRun = 7;

Candidate candidate(const std::string &id, std::vector<std::string> parents, const std::string &op,
                    Origin origin = Origin::Mutated)
{
    Candidate c;
    c.id = id;
    c.opName = "relu";
    c.parentIds = std::move(parents);
    c.operatorName = op;
    c.description = op + " of " + id;
    c.origin = origin;
    c.runId = kRun;
    return c;
}

Evaluation evaluation(const std::string &id, const std::string &gpu, EvalStatus status, double speedup = 0)
{
    Evaluation e;
    e.candidateId = id;
    e.gpu.name = gpu;
    e.status = status;
    e.speedup = status == EvalStatus::Correct ? speedup : 0;
    return e;
}

/**
 *            root (gen 0)
 *           /     \
 *      aaaa        bbbb        (gen 1: mutate-block, block-size)
 *     /    \      /
 *  dddd     cccc (crossover of aaaa and bbbb)     (gen 2; dddd fails to compile)
 *    |
 *  eeee (incorrect, gen 3)
 */
struct Sample
{
    std::vector<std::pair<Candidate, int>> candidates{
        {candidate("root0000", {}, "translate", Origin::Translated), 0},
        {candidate("aaaa1111", {"root0000"}, "mutate-block"), 1},
        {candidate("bbbb2222", {"root0000"}, "block-size"), 1},
        {candidate("cccc3333", {"aaaa1111", "bbbb2222"}, "crossover", Origin::Crossover), 2},
        {candidate("dddd4444", {"aaaa1111"}, "unroll"), 2},
        {candidate("eeee5555", {"dddd4444"}, "repair"), 3},
    };
    std::vector<Evaluation> evaluations{
        evaluation("root0000", "GPU X", EvalStatus::Correct, 1.0),
        evaluation("aaaa1111", "GPU X", EvalStatus::Correct, 2.0),
        evaluation("bbbb2222", "GPU X", EvalStatus::Correct, 1.5),
        evaluation("bbbb2222", "GPU Y", EvalStatus::Correct, 3.0),
        evaluation("cccc3333", "GPU X", EvalStatus::Correct, 4.0),
        evaluation("dddd4444", "GPU X", EvalStatus::CompileError),
        evaluation("eeee5555", "GPU X", EvalStatus::Incorrect),
    };

    LineageGraph graph() const
    {
        LineageGraph g;
        for (const auto &[c, generation] : candidates)
            g.addNode(LineageGraph::nodeFromCandidate(c, generation));
        for (const Evaluation &e : evaluations)
            g.addEvaluation(e);
        return g;
    }
};

} // namespace

class TestLineage : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void graphMergesAndLinksLateParents();
    void layoutIsLayeredByGeneration();
    void layoutInvariantsOnRandomLineages_data();
    void layoutInvariantsOnRandomLineages();
    void sceneHasEveryEdge();
    void keyboardNavigation();
    void search();
    void pathToBest();
    void bestSkipsRejectedAndImpossibleKernels();
    void nodeMenuJudgesOpensAndCopies();
    void collapseFailed();
    void eliteView();
    void failuresOfAGenerationGrouped();
    void showFilter();
    void staleLayoutsAreDropped();
    void liveEventsOfOtherRunsAreIgnored();
    void candidateShownBeforeItsLayoutIsSelected();

private:
    /// A page showing the sample, fed as live events, laid out.
    void fillPage(LineagePage &page);
};

void TestLineage::graphMergesAndLinksLateParents()
{
    LineageGraph g;
    // A child before its parent (a live event overtaking the archive read) still gets its edge.
    const int child = g.addNode(LineageGraph::nodeFromCandidate(candidate("c", {"p"}, "unroll"), 1));
    QVERIFY(g.parents(child).isEmpty());
    bool added = false;
    const int parent = g.addNode(LineageGraph::nodeFromCandidate(candidate("p", {}, "translate"), 0), &added);
    QVERIFY(added);
    QCOMPARE(g.parents(child), QVector<int>{parent});
    QCOMPARE(g.children(parent), QVector<int>{child});
    // The same candidate again merges: no new node, results combine per GPU.
    g.addEvaluation(evaluation("c", "GPU X", EvalStatus::Incorrect));
    g.addEvaluation(evaluation("c", "GPU X", EvalStatus::Correct, 2.5));
    g.addEvaluation(evaluation("c", "GPU Y", EvalStatus::Timeout));
    g.addNode(LineageGraph::nodeFromCandidate(candidate("c", {"p"}, "unroll"), 1), &added);
    QVERIFY(!added);
    QCOMPARE(g.size(), 2);
    QCOMPARE(g.outcome(child, QStringLiteral("GPU X")), LineageOutcome::Correct);
    QCOMPARE(g.outcome(child, QStringLiteral("GPU Y")), LineageOutcome::Failure);
    QCOMPARE(g.outcome(child, QStringLiteral("GPU Z")), LineageOutcome::Pending);
    QCOMPARE(g.outcome(child), LineageOutcome::Correct);
    QCOMPARE(g.speedup(child, QStringLiteral("GPU X")), 2.5);
    QCOMPARE(g.speedup(child, QStringLiteral("GPU Y")), 0.0);
    QCOMPARE(g.gpuNames(), (QStringList{QStringLiteral("GPU X"), QStringLiteral("GPU Y")}));
    QVERIFY(!g.addEvaluation(evaluation("unknown", "GPU X", EvalStatus::Correct, 1)));
}

void TestLineage::layoutIsLayeredByGeneration()
{
    const LineageGraph g = Sample().graph();
    const LineageLayoutMetrics metrics;
    const LineageLayout layout = layoutLineage(g, {}, metrics);
    QCOMPARE(layout.nodeCount, g.size());
    auto pos = [&](const char *id) { return layout.positions.at(g.indexOf(QLatin1String(id))); };
    // One row per generation, top down.
    QCOMPARE(pos("aaaa1111").y(), pos("bbbb2222").y());
    QCOMPARE(pos("cccc3333").y(), pos("dddd4444").y());
    QVERIFY(pos("root0000").y() < pos("aaaa1111").y());
    QVERIFY(pos("aaaa1111").y() < pos("cccc3333").y());
    QVERIFY(pos("cccc3333").y() < pos("eeee5555").y());
    // Siblings do not overlap.
    QVERIFY(std::abs(pos("aaaa1111").x() - pos("bbbb2222").x()) >= metrics.nodeSize.width());
    QVERIFY(std::abs(pos("cccc3333").x() - pos("dddd4444").x()) >= metrics.nodeSize.width());
    // Ordered to avoid crossings: the crossover child of aaaa and bbbb sits right of aaaa's other child,
    // and a single child sits straight under its parent.
    QVERIFY(pos("aaaa1111").x() < pos("bbbb2222").x());
    QVERIFY(pos("dddd4444").x() < pos("cccc3333").x());
    QCOMPARE(pos("eeee5555").x(), pos("dddd4444").x());
    QVERIFY(layout.bounds.contains(pos("eeee5555")));
}

void TestLineage::layoutInvariantsOnRandomLineages_data()
{
    QTest::addColumn<int>("nodes");
    QTest::addColumn<int>("seed");
    QTest::newRow("small") << 30 << 1;
    QTest::newRow("medium") << 500 << 2;
    QTest::newRow("large") << 3000 << 3;
}

void TestLineage::layoutInvariantsOnRandomLineages()
{
    QFETCH(int, nodes);
    QFETCH(int, seed);
    std::mt19937 random(seed);
    LineageGraph g;
    g.addNode(LineageGraph::nodeFromCandidate(candidate("n0", {}, "translate"), 0));
    for (int i = 1; i < nodes; ++i) {
        const int generation = 1 + (i - 1) / 8;
        // Parents from the previous generation or earlier; some crossovers.
        const int firstOfPrevious = generation == 1 ? 0 : 1 + (generation - 2) * 8;
        std::uniform_int_distribution<int> pick(std::max(0, firstOfPrevious - 8), std::min(i - 1, firstOfPrevious + 7));
        std::vector<std::string> parents{"n" + std::to_string(pick(random))};
        if (random() % 4 == 0) {
            const std::string other = "n" + std::to_string(pick(random));
            if (other != parents.front())
                parents.push_back(other);
        }
        g.addNode(LineageGraph::nodeFromCandidate(candidate("n" + std::to_string(i), parents, "mutate"), generation));
    }
    const LineageLayoutMetrics metrics;
    const LineageLayout layout = layoutLineage(g, {}, metrics);
    QCOMPARE(layout.positions.size(), nodes);
    QMap<int, QList<qreal>> rows;
    for (int i = 0; i < nodes; ++i) {
        const int generation = g.node(i).generation;
        QCOMPARE(layout.positions.at(i).y(), generation * (metrics.nodeSize.height() + metrics.verticalGap));
        rows[generation] << layout.positions.at(i).x();
    }
    for (QList<qreal> &xs : rows) {
        std::sort(xs.begin(), xs.end());
        for (int k = 1; k < xs.size(); ++k)
            QVERIFY2(xs.at(k) - xs.at(k - 1) >= metrics.nodeSize.width() + metrics.horizontalGap - 1e-6,
                     "nodes of a generation overlap");
    }
    LineageScene scene;
    scene.applyLayout(g, layout);
    int edges = 0;
    for (int i = 0; i < nodes; ++i)
        edges += g.parents(i).size();
    QCOMPARE(int(scene.edgeItems().size()), edges);
    QCOMPARE(scene.nodeItemCount(), nodes);
}

void TestLineage::sceneHasEveryEdge()
{
    const LineageGraph g = Sample().graph();
    LineageScene scene;
    scene.applyLayout(g, layoutLineage(g));
    QCOMPARE(scene.nodeItemCount(), g.size());
    QSet<QString> edges;
    QStringList crossoverEdges;
    for (LineageEdgeItem *edge : scene.edgeItems()) {
        const QString text = g.node(edge->parent()).id.left(4) + QLatin1String("->") + g.node(edge->child()).id.left(4);
        edges.insert(text);
        QCOMPARE(edge->label(), g.node(edge->child()).operatorName);
        if (g.node(edge->child()).id.startsWith(QLatin1String("cccc")))
            crossoverEdges << text + (edge->isSecondParent() ? QLatin1String(" (second)") : QString());
        QVERIFY(edge->isVisible());
    }
    QCOMPARE(edges,
             (QSet<QString>{QStringLiteral("root->aaaa"), QStringLiteral("root->bbbb"), QStringLiteral("aaaa->cccc"),
                            QStringLiteral("bbbb->cccc"), QStringLiteral("aaaa->dddd"), QStringLiteral("dddd->eeee")}));
    crossoverEdges.sort();
    QCOMPARE(crossoverEdges, (QStringList{QStringLiteral("aaaa->cccc"), QStringLiteral("bbbb->cccc (second)")}));
    // A second layout moves the same items instead of making new ones.
    scene.applyLayout(g, layoutLineage(g));
    QCOMPARE(int(scene.edgeItems().size()), 6);
    QCOMPARE(scene.items().size(), 6 + g.size());
}

void TestLineage::fillPage(LineagePage &page)
{
    page.showRun(kRun); // No archive: only live events fill it.
    QSignalSpy applied(&page, &LineagePage::layoutApplied);
    const Sample sample;
    for (const auto &[c, generation] : sample.candidates)
        page.addCandidate(c, generation);
    for (const Evaluation &e : sample.evaluations)
        page.addEvaluation(e);
    QTRY_VERIFY(!applied.isEmpty());
    QTRY_COMPARE(page.scene()->nodeItemCount(), 6);
    QCOMPARE(page.graph().size(), 6);
}

void TestLineage::keyboardNavigation()
{
    LineagePage page;
    page.resize(900, 700);
    page.show();
    fillPage(page);
    QSignalSpy selected(&page, &LineagePage::currentCandidateChanged);
    QVERIFY(page.selectCandidate(QStringLiteral("root0000")));
    QCOMPARE(page.currentCandidateId(), QStringLiteral("root0000"));
    QVERIFY(selected.isEmpty()); // Selecting from outside does not echo.

    struct Step
    {
        Qt::Key key;
        const char *expected;
    };
    const Step steps[] = {
        {Qt::Key_Down, "aaaa1111"},                              // first child (leftmost)
        {Qt::Key_Right, "bbbb2222"},                             // sibling
        {Qt::Key_Right, "bbbb2222"},                             // no further sibling: stays
        {Qt::Key_Left, "aaaa1111"},  {Qt::Key_Down, "dddd4444"}, // aaaa's leftmost child
        {Qt::Key_Right, "cccc3333"},                             // crossover child shares the first parent
        {Qt::Key_Up, "aaaa1111"},                                // first parent of the crossover
        {Qt::Key_Up, "root0000"},    {Qt::Key_Up, "root0000"},   // a root has no parent
    };
    for (const Step &step : steps) {
        QTest::keyClick(page.view(), step.key);
        QCOMPARE(page.currentCandidateId(), QLatin1String(step.expected));
    }
    QVERIFY(!selected.isEmpty());
    QCOMPARE(selected.last().first().toString(), QStringLiteral("root0000"));
}

void TestLineage::search()
{
    LineagePage page;
    fillPage(page);
    page.setSearchText(QStringLiteral("crossover"));
    QCOMPARE(page.matches(), QVector<int>{page.graph().indexOf(QStringLiteral("cccc3333"))});
    QVERIFY(page.scene()->nodeItem(page.graph().indexOf(QStringLiteral("cccc3333")))->look().match);
    QVERIFY(!page.scene()->nodeItem(page.graph().indexOf(QStringLiteral("aaaa1111")))->look().match);
    QSignalSpy selected(&page, &LineagePage::currentCandidateChanged);
    QVERIFY(page.selectNextMatch());
    QCOMPARE(page.currentCandidateId(), QStringLiteral("cccc3333"));
    QCOMPARE(selected.last().first().toString(), QStringLiteral("cccc3333"));

    page.setSearchText(QStringLiteral("BBBB")); // id prefix, any case
    QCOMPARE(page.matches(), QVector<int>{page.graph().indexOf(QStringLiteral("bbbb2222"))});
    page.setSearchText(QStringLiteral("of ")); // every description
    QCOMPARE(page.matches().size(), 6);
    page.setSearchText(QStringLiteral("nothing like this"));
    QVERIFY(page.matches().isEmpty());
    QVERIFY(!page.selectNextMatch());
}

void TestLineage::pathToBest()
{
    LineagePage page;
    fillPage(page);
    const LineageGraph &g = page.graph();
    auto ids = [&g](const QVector<int> &path) {
        QStringList out;
        for (int i : path)
            out << g.node(i).id.left(4);
        return out;
    };
    page.setGpu(QStringLiteral("GPU X"));
    QCOMPARE(ids(page.pathToBest()),
             (QStringList{QStringLiteral("root"), QStringLiteral("aaaa"), QStringLiteral("cccc")}));
    page.setShowPathToBest(true);
    QStringList highlighted;
    for (LineageEdgeItem *edge : page.scene()->edgeItems())
        if (edge->zValue() > 0)
            highlighted << g.node(edge->parent()).id.left(4) + QLatin1String("->") + g.node(edge->child()).id.left(4);
    highlighted.sort();
    QCOMPARE(highlighted, (QStringList{QStringLiteral("aaaa->cccc"), QStringLiteral("root->aaaa")}));
    QVERIFY(page.scene()->nodeItem(g.indexOf(QStringLiteral("cccc3333")))->look().best);
    QVERIFY(page.scene()->nodeItem(g.indexOf(QStringLiteral("aaaa1111")))->look().onPath);
    QVERIFY(!page.scene()->nodeItem(g.indexOf(QStringLiteral("bbbb2222")))->look().onPath);

    // On another GPU another kernel is best, and colours follow that GPU.
    page.setGpu(QStringLiteral("GPU Y"));
    QCOMPARE(ids(page.pathToBest()), (QStringList{QStringLiteral("root"), QStringLiteral("bbbb")}));
    QCOMPARE(page.scene()->nodeItem(g.indexOf(QStringLiteral("aaaa1111")))->look().fill,
             LineageScene::outcomeColor(LineageOutcome::Pending, 0));
    QCOMPARE(page.scene()->nodeItem(g.indexOf(QStringLiteral("bbbb2222")))->look().fill,
             LineageScene::outcomeColor(LineageOutcome::Correct, 3.0));
    QVERIFY(LineageScene::outcomeColor(LineageOutcome::Correct, 3.0)
            != LineageScene::outcomeColor(LineageOutcome::Correct, 1.2));
}

// The lineage's "Best" is the best kernel that counts: not one rejected, not one flagged impossible.
void TestLineage::bestSkipsRejectedAndImpossibleKernels()
{
    LineageGraph graph;
    for (const auto &c : {candidate("root", {}, "translate", Origin::Translated), candidate("fast", {"root"}, "mutate"),
                          candidate("honest", {"root"}, "mutate"), candidate("exploit", {"root"}, "mutate")})
        graph.addNode(LineageGraph::nodeFromCandidate(c, c.parentIds.empty() ? 0 : 1));
    graph.addEvaluation(evaluation("root", "GPU X", EvalStatus::Correct, 1.0));
    graph.addEvaluation(evaluation("honest", "GPU X", EvalStatus::Correct, 1.2));
    Evaluation flagged = evaluation("fast", "GPU X", EvalStatus::Correct, 90.0);
    flagged.flags.push_back({"impossible", "{}"});
    graph.addEvaluation(flagged);
    graph.addEvaluation(evaluation("exploit", "GPU X", EvalStatus::Correct, 5.0));
    QCOMPARE(graph.node(graph.bestNode()).id, QStringLiteral("exploit"));
    graph.setVerdict(QStringLiteral("exploit"), false); // rejected as exploiting the harness
    QCOMPARE(graph.node(graph.bestNode()).id, QStringLiteral("honest"));
    QCOMPARE(graph.node(graph.bestNode(QStringLiteral("GPU X"))).id, QStringLiteral("honest"));
    // Accepting it again makes it best again; the flagged one never is.
    graph.setVerdict(QStringLiteral("exploit"), true);
    QCOMPARE(graph.node(graph.bestNode()).id, QStringLiteral("exploit"));
    QVERIFY(graph.node(graph.indexOf(QStringLiteral("fast"))).flaggedImpossible);
}

void TestLineage::nodeMenuJudgesOpensAndCopies()
{
    LineagePage page;
    QMenu menu;
    page.fillNodeMenu(menu, QStringLiteral("aaaa1111"));
    const auto trigger = [&menu](const char *name) {
        QAction *action = menu.findChild<QAction *>(QLatin1String(name));
        QVERIFY2(action, name);
        action->trigger();
    };
    QSignalSpy review(&page, &LineagePage::reviewRequested);
    QSignalSpy open(&page, &LineagePage::openInKernelsRequested);
    QSignalSpy edit(&page, &LineagePage::newCandidateRequested);
    trigger("nodeReject");
    QCOMPARE(review.count(), 1);
    QCOMPARE(review.first().at(0).toString(), QStringLiteral("aaaa1111"));
    QCOMPARE(review.first().at(1).toBool(), false);
    trigger("nodeAccept");
    QCOMPARE(review.last().at(1).toBool(), true);
    trigger("nodeOpenInKernels");
    QCOMPARE(open.count(), 1);
    trigger("nodeNewCandidate");
    QCOMPARE(edit.count(), 1);
    trigger("nodeCopyId");
    QCOMPARE(QGuiApplication::clipboard()->text(), QStringLiteral("aaaa1111"));
}

void TestLineage::collapseFailed()
{
    LineagePage page;
    fillPage(page);
    page.setGpu(QStringLiteral("GPU X"));
    const LineageGraph &g = page.graph();
    const int d = g.indexOf(QStringLiteral("dddd4444"));
    const int e = g.indexOf(QStringLiteral("eeee5555"));
    const int a = g.indexOf(QStringLiteral("aaaa1111"));
    QSignalSpy applied(&page, &LineagePage::layoutApplied);
    page.setCollapseFailed(true);
    QTRY_VERIFY(!applied.isEmpty());
    QVERIFY(!page.scene()->nodeItem(d)->isVisible());
    QVERIFY(!page.scene()->nodeItem(e)->isVisible());
    QVERIFY(page.scene()->nodeItem(a)->isVisible());
    QCOMPARE(page.scene()->nodeItem(a)->look().hiddenChildren, 1);
    for (LineageEdgeItem *edge : page.scene()->edgeItems())
        QCOMPARE(edge->isVisible(), edge->child() != d && edge->child() != e);
    QVERIFY(!page.selectCandidate(QStringLiteral("dddd4444")));

    applied.clear();
    page.setCollapseFailed(false);
    QTRY_VERIFY(!applied.isEmpty());
    QVERIFY(page.scene()->nodeItem(d)->isVisible());
    QCOMPARE(page.scene()->nodeItem(a)->look().hiddenChildren, 0);
}

// A generation's failures from one parent become one node that says how many there were.
void TestLineage::failuresOfAGenerationGrouped()
{
    // root -> f1, f2, f3 (failed, generation 1), ok (correct, 1), g1 (failed, 2); ok -> h1, h2 (failed, 2);
    // ok -> ok2 (correct, 2) -> x (failed, 3, alone).
    const std::vector<std::pair<Candidate, int>> candidates{{candidate("root", {}, "translate", Origin::Translated), 0},
                                                            {candidate("f1", {"root"}, "mutate"), 1},
                                                            {candidate("f2", {"root"}, "mutate"), 1},
                                                            {candidate("f3", {"root"}, "mutate"), 1},
                                                            {candidate("ok", {"root"}, "mutate"), 1},
                                                            {candidate("g1", {"root"}, "mutate"), 2},
                                                            {candidate("h1", {"ok"}, "mutate"), 2},
                                                            {candidate("h2", {"ok", "root"}, "crossover"), 2},
                                                            {candidate("ok2", {"ok"}, "mutate"), 2},
                                                            {candidate("x", {"ok2"}, "mutate"), 3}};
    const std::vector<std::pair<std::string, EvalStatus>> results{
        {"root", EvalStatus::Correct}, {"f1", EvalStatus::Incorrect}, {"f2", EvalStatus::CompileError},
        {"f3", EvalStatus::Timeout},   {"ok", EvalStatus::Correct},   {"g1", EvalStatus::Incorrect},
        {"h1", EvalStatus::Incorrect}, {"h2", EvalStatus::Fault},     {"ok2", EvalStatus::Correct},
        {"x", EvalStatus::Incorrect}};
    LineageGraph graph;
    for (const auto &[c, generation] : candidates)
        graph.addNode(LineageGraph::nodeFromCandidate(c, generation));
    for (const auto &[id, status] : results)
        graph.addEvaluation(evaluation(id, "GPU X", status, 1.5));
    const auto id = [&graph](int index) { return index < 0 ? QString() : graph.node(index).id; };
    const QVector<int> groups = graph.failureGroups(QStringLiteral("GPU X"));
    const auto groupOf = [&](const char *node) { return id(groups.at(graph.indexOf(QLatin1String(node)))); };
    QCOMPARE(groupOf("f1"), QStringLiteral("f1"));
    QCOMPARE(groupOf("f2"), QStringLiteral("f1"));
    QCOMPARE(groupOf("f3"), QStringLiteral("f1"));
    QCOMPARE(groupOf("g1"), QString()); // another generation: alone
    QCOMPARE(groupOf("h1"), QStringLiteral("h1"));
    QCOMPARE(groupOf("h2"), QStringLiteral("h1")); // grouped by its first parent
    QCOMPARE(groupOf("x"), QString());
    QCOMPARE(groupOf("ok"), QString());
    QCOMPARE(groupOf("root"), QString());
    const QVector<bool> visible = graph.visibleWithFailuresGrouped(QStringLiteral("GPU X"));
    QStringList hidden;
    for (int i = 0; i < graph.size(); ++i)
        if (!visible.at(i))
            hidden << graph.node(i).id;
    hidden.sort();
    QCOMPARE(hidden, (QStringList{"f2", "f3", "h2"}));

    // On the page: a toggle; the first of each group says how many failed.
    LineagePage page;
    page.showRun(kRun);
    QSignalSpy applied(&page, &LineagePage::layoutApplied);
    for (const auto &[c, generation] : candidates)
        page.addCandidate(c, generation);
    for (const auto &[node, status] : results)
        page.addEvaluation(evaluation(node, "GPU X", status, 1.5));
    QTRY_COMPARE(page.scene()->nodeItemCount(), 10);
    applied.clear();
    page.setGroupFailures(true);
    QTRY_VERIFY(!applied.isEmpty());
    const auto item = [&page](const char *node) {
        return page.scene()->nodeItem(page.graph().indexOf(QLatin1String(node)));
    };
    QVERIFY(!item("f2")->isVisible());
    QVERIFY(!item("h2")->isVisible());
    QVERIFY(item("g1")->isVisible());
    QCOMPARE(item("f1")->look().groupedFailures, 3);
    QCOMPARE(item("f1")->look().detail, QStringLiteral("3 failed"));
    QCOMPARE(item("h1")->look().detail, QStringLiteral("2 failed"));
    QCOMPARE(item("g1")->look().groupedFailures, 0);
    QVERIFY(page.findChild<QAction *>(QStringLiteral("groupFailuresAction"))->isChecked());

    applied.clear();
    page.setGroupFailures(false);
    QTRY_VERIFY(!applied.isEmpty());
    QVERIFY(item("f2")->isVisible());
    QCOMPARE(item("f1")->look().groupedFailures, 0);
    QCOMPARE(item("f1")->look().detail, QStringLiteral("incorrect"));
}

// The elite view of a large run: the fastest kernels, their ancestors and what else was tried at each step.
void TestLineage::eliteView()
{
    // root -> a, b, c; a -> a1, a2, a3; b -> b1; a1 is the fastest, b1 second, a flagged kernel c fastest of all.
    LineageGraph graph;
    for (const auto &c :
         {candidate("root", {}, "translate", Origin::Translated), candidate("a", {"root"}, "mutate"),
          candidate("b", {"root"}, "mutate"), candidate("c", {"root"}, "mutate"), candidate("a1", {"a"}, "mutate"),
          candidate("a2", {"a"}, "mutate"), candidate("a3", {"a"}, "mutate"), candidate("b1", {"b"}, "mutate"),
          candidate("b1x", {"b1"}, "mutate")})
        graph.addNode(LineageGraph::nodeFromCandidate(c, int(c.parentIds.empty() ? 0 : c.id.size())));
    for (const auto &[id, speedup] : std::vector<std::pair<std::string, double>>{
             {"root", 1.0}, {"a", 1.1}, {"b", 1.05}, {"a1", 3.0}, {"a2", 1.2}, {"a3", 0.9}, {"b1", 2.0}, {"b1x", 0.5}})
        graph.addEvaluation(evaluation(id, "GPU X", EvalStatus::Correct, speedup));
    Evaluation flagged = evaluation("c", "GPU X", EvalStatus::Correct, 90.0);
    flagged.flags.push_back({"impossible", "{}"});
    graph.addEvaluation(flagged);

    const auto shown = [&graph](const QVector<bool> &visible) {
        QStringList ids;
        for (int i = 0; i < graph.size(); ++i)
            if (visible.at(i))
                ids << graph.node(i).id;
        ids.sort();
        return ids;
    };
    // The best one: its line back to the root, the siblings along it; not b's subtree below b.
    QCOMPARE(shown(graph.visibleElite(1, QStringLiteral("GPU X"))),
             (QStringList{"a", "a1", "a2", "a3", "b", "c", "root"}));
    // The best two: b1 and its line too, and b1's child (tried from it).
    QCOMPARE(shown(graph.visibleElite(2, QStringLiteral("GPU X"))),
             (QStringList{"a", "a1", "a2", "a3", "b", "b1", "b1x", "c", "root"}));

    // On the page: a toggle, combined with collapsing failed branches.
    LineagePage page;
    fillPage(page);
    page.setGpu(QStringLiteral("GPU X"));
    QSignalSpy applied(&page, &LineagePage::layoutApplied);
    auto *elite = page.findChild<QAction *>(QStringLiteral("eliteAction"));
    QVERIFY(elite && elite->isCheckable());
    elite->setChecked(true);
    QTRY_VERIFY(!applied.isEmpty());
    const LineageGraph &sample = page.graph();
    int visible = 0;
    for (int i = 0; i < sample.size(); ++i)
        visible += page.scene()->nodeItem(i)->isVisible();
    // The sample's ten best are all its correct kernels: their lines and siblings cover all but eeee (a child of
    // the failed dddd).
    QCOMPARE(visible, sample.size() - 1);
    QVERIFY(!page.scene()->nodeItem(sample.indexOf(QStringLiteral("eeee5555")))->isVisible());
}

// The Show filter: kernels of a kind on the chosen GPU, with their ancestors so each stays linked to the root.
void TestLineage::showFilter()
{
    const LineageGraph g = Sample().graph();
    const auto shown = [&g](LineageGraph::Show show, const char *gpu) {
        const QVector<bool> visible = g.visibleFiltered(show, QLatin1String(gpu));
        QStringList ids;
        for (int i = 0; i < g.size(); ++i)
            if (visible.at(i))
                ids << g.node(i).id;
        ids.sort();
        return ids;
    };
    QCOMPARE(shown(LineageGraph::Show::All, "GPU X").size(), g.size());
    QCOMPARE(shown(LineageGraph::Show::Correct, "GPU X"),
             (QStringList{"aaaa1111", "bbbb2222", "cccc3333", "root0000"}));
    QCOMPARE(shown(LineageGraph::Show::FasterThanEager, "GPU Y"), (QStringList{"bbbb2222", "root0000"}));
    // The failures with the line that led to them.
    QCOMPARE(shown(LineageGraph::Show::Failed, "GPU X"), (QStringList{"aaaa1111", "dddd4444", "eeee5555", "root0000"}));

    LineagePage page;
    fillPage(page);
    page.setGpu(QStringLiteral("GPU X"));
    QSignalSpy applied(&page, &LineagePage::layoutApplied);
    auto *combo = page.findChild<QComboBox *>(QStringLiteral("lineageShow"));
    QVERIFY(combo);
    combo->setCurrentIndex(combo->findData(int(LineageGraph::Show::Failed)));
    QTRY_VERIFY(!applied.isEmpty());
    int visible = 0;
    for (int i = 0; i < page.graph().size(); ++i)
        visible += page.scene()->nodeItem(i)->isVisible();
    QCOMPARE(visible, 4);
    QVERIFY(!page.scene()->nodeItem(page.graph().indexOf(QStringLiteral("cccc3333")))->isVisible());
}

void TestLineage::staleLayoutsAreDropped()
{
    LineagePage page;
    fillPage(page);
    QThreadPool::globalInstance()->waitForDone();
    QCoreApplication::processEvents();
    const int before = page.appliedLayoutCount();
    QSignalSpy applied(&page, &LineagePage::layoutApplied);
    const quint64 first = page.requestLayout();
    const quint64 second = page.requestLayout();
    QVERIFY(second > first);
    // Let both background layouts finish and their results arrive.
    QThreadPool::globalInstance()->waitForDone();
    QTRY_COMPARE(applied.size(), 1);
    QCoreApplication::processEvents();
    QCOMPARE(applied.size(), 1);
    QCOMPARE(applied.first().first().value<quint64>(), second);
    QCOMPARE(page.appliedLayoutGeneration(), second);
    QCOMPARE(page.appliedLayoutCount(), before + 1);
}

void TestLineage::liveEventsOfOtherRunsAreIgnored()
{
    LineagePage page;
    page.showRun(kRun);
    Candidate other = candidate("zzzz", {}, "translate");
    other.runId = kRun + 1;
    page.addCandidate(other, 0);
    QCOMPARE(page.graph().size(), 0);
    page.addCandidate(candidate("yyyy", {}, "translate"), 0);
    QCOMPARE(page.graph().size(), 1);
    page.showRun(kRun + 1);
    QCOMPARE(page.graph().size(), 0);
}

void TestLineage::candidateShownBeforeItsLayoutIsSelected()
{
    LineagePage page;
    page.resize(900, 700);
    page.show();
    page.showRun(kRun);
    // The window shows a kernel while the run is still being read or laid out: no node to select yet.
    page.showCandidate(QStringLiteral("cccc3333"));
    QCOMPARE(page.currentCandidateId(), QString());
    QSignalSpy selected(&page, &LineagePage::currentCandidateChanged);
    fillPage(page);
    QTRY_COMPARE(page.currentCandidateId(), QStringLiteral("cccc3333"));
    QVERIFY(selected.isEmpty()); // Shown from outside: no echo.

    // A candidate that is not in the laid-out run is given up, not selected by some later layout.
    page.showCandidate(QStringLiteral("late5555"));
    QCOMPARE(page.currentCandidateId(), QStringLiteral("cccc3333"));
    QSignalSpy applied(&page, &LineagePage::layoutApplied);
    page.requestLayout();
    QTRY_VERIFY(!applied.isEmpty());
    applied.clear();
    page.addCandidate(candidate("late5555", {"root0000"}, "mutate"), 1);
    page.requestLayout();
    QTRY_VERIFY(!applied.isEmpty());
    QVERIFY(page.currentCandidateId() != QStringLiteral("late5555"));
}

QTEST_MAIN(TestLineage)
#include "tst_lineage.moc"
