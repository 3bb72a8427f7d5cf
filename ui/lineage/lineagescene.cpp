#include "ui/lineage/lineagescene.h"

#include "ui/common/format.h"
#include "ui/lineage/lineagenodeitem.h"

#include <algorithm>
#include <cmath>

namespace kx::ui {

namespace {

quint64 edgeKey(int parent, int child)
{
    return (quint64(quint32(parent)) << 32) | quint32(child);
}

} // namespace

LineageScene::LineageScene(QObject *parent)
    : QGraphicsScene(parent)
{
    setItemIndexMethod(QGraphicsScene::BspTreeIndex);
}

void LineageScene::clearLineage()
{
    clear();
    m_nodes.clear();
    m_edges.clear();
    m_edgeKeys.clear();
    m_layout = {};
    setSceneRect(QRectF());
}

bool LineageScene::isNodeVisible(int index) const
{
    return index >= 0 && index < m_layout.visible.size() && m_layout.visible.at(index);
}

void LineageScene::applyLayout(const LineageGraph &graph, const LineageLayout &layout)
{
    const LineageLayoutMetrics m = metrics();
    // A layout is made from a copy of the graph; the graph may have grown since, never shrunk.
    const int count = std::min(graph.size(), layout.nodeCount);
    m_layout = layout;
    for (int i = int(m_nodes.size()); i < count; ++i) {
        auto *item = new LineageNodeItem(i, m.nodeSize);
        addItem(item);
        m_nodes.append(item);
    }
    for (int i = 0; i < count; ++i) {
        m_nodes[i]->setPos(layout.positions.at(i));
        m_nodes[i]->setVisible(layout.visible.at(i));
    }
    for (int child = 0; child < count; ++child) {
        const QVector<int> &parents = graph.parents(child);
        for (int k = 0; k < parents.size(); ++k) {
            const int parent = parents.at(k);
            if (parent >= count || m_edgeKeys.contains(edgeKey(parent, child)))
                continue;
            auto *edge = new LineageEdgeItem(parent, child, k > 0);
            edge->setLabel(graph.node(child).operatorName);
            addItem(edge);
            m_edges.append(edge);
            m_edgeKeys.insert(edgeKey(parent, child));
        }
    }
    const qreal halfH = m.nodeSize.height() / 2;
    for (LineageEdgeItem *edge : std::as_const(m_edges)) {
        const bool shown =
            edge->child() < count && layout.visible.at(edge->parent()) && layout.visible.at(edge->child());
        edge->setVisible(shown);
        if (shown)
            edge->setEnds(layout.positions.at(edge->parent()) + QPointF(0, halfH),
                          layout.positions.at(edge->child()) - QPointF(0, halfH));
    }
    setSceneRect(layout.bounds.adjusted(-80, -60, 80, 60));
}

void LineageScene::applyLook(const LineageGraph &graph, const LineageHighlights &highlights)
{
    const QSet<int> onPath(highlights.path.begin(), highlights.path.end());
    // How many failures each group's first member stands for: itself and its hidden fellow members.
    const QVector<int> groups = graph.failureGroups(highlights.gpu);
    QHash<int, int> standsFor;
    for (int i = 0; i < groups.size(); ++i)
        if (groups.at(i) >= 0 && (groups.at(i) == i || !isNodeVisible(i)))
            ++standsFor[groups.at(i)];
    for (LineageNodeItem *item : std::as_const(m_nodes)) {
        const int i = item->index();
        if (i >= graph.size())
            continue;
        const LineageNode &node = graph.node(i);
        const LineageOutcome outcome = graph.outcome(i, highlights.gpu);
        const double speedup = graph.speedup(i, highlights.gpu);
        LineageNodeItem::Look look;
        look.title = node.id.left(10);
        switch (outcome) {
        case LineageOutcome::Correct: look.detail = Format::speedup(speedup); break;
        case LineageOutcome::Pending: look.detail = LineageScene::tr("pending"); break;
        case LineageOutcome::CompileError: look.detail = LineageScene::tr("compile error"); break;
        case LineageOutcome::Incorrect: look.detail = LineageScene::tr("incorrect"); break;
        case LineageOutcome::Failure: look.detail = LineageScene::tr("crash/timeout"); break;
        }
        look.fill = outcomeColor(outcome, speedup);
        // The first failure of a group stands for the hidden others.
        if (const int members = standsFor.value(i); members > 1) {
            look.groupedFailures = members;
            look.detail = LineageScene::tr("%1 failed").arg(members);
        }
        look.accepted = node.accepted;
        look.match = highlights.matches.contains(i);
        look.onPath = onPath.contains(i);
        look.best = i == highlights.best;
        if (isNodeVisible(i))
            for (int child : graph.children(i))
                if (child < m_layout.visible.size() && !m_layout.visible.at(child))
                    ++look.hiddenChildren;
        item->setLook(look);
    }
    for (LineageEdgeItem *edge : std::as_const(m_edges)) {
        const int at = highlights.path.indexOf(edge->child());
        edge->setHighlighted(at > 0 && highlights.path.at(at - 1) == edge->parent());
    }
}

QColor LineageScene::outcomeColor(LineageOutcome outcome, double speedup)
{
    switch (outcome) {
    case LineageOutcome::Pending: return QColor(0xad, 0xb5, 0xbd);
    case LineageOutcome::CompileError: return Format::statusColor(EvalStatus::CompileError);
    case LineageOutcome::Incorrect: return Format::statusColor(EvalStatus::Incorrect);
    case LineageOutcome::Failure: return Format::statusColor(EvalStatus::Crashed);
    case LineageOutcome::Correct: break;
    }
    // Slower than eager PyTorch: pale olive; faster: greener and darker up to 8x (log scale).
    if (speedup < 1.0)
        return QColor(0xc9, 0xd6, 0x8a);
    const double t = std::clamp(std::log2(speedup) / 3.0, 0.0, 1.0);
    return QColor::fromHslF(0.36, 0.55, 0.72 - 0.45 * t);
}

} // namespace kx::ui
