#pragma once

#include "ui/lineage/lineagegraph.h"
#include "ui/lineage/lineagelayout.h"

#include <QGraphicsScene>
#include <QHash>
#include <QSet>
#include <QVector>

namespace kx::ui {

class LineageEdgeItem;
class LineageNodeItem;

/// What the lineage emphasises besides outcomes.
struct LineageHighlights
{
    QString gpu;       ///< Colour by results on this GPU (empty: any).
    QSet<int> matches; ///< Search hits.
    QVector<int> path; ///< Root to best, when shown.
    int best = -1;
};

/**
 * The lineage as graphics items. Items are created once per node and edge and kept: a new layout only moves
 * them and a new colouring only restyles them, so a growing run never rebuilds the scene. Uses the BSP index,
 * which keeps painting and picking fast with thousands of items.
 */
class LineageScene : public QGraphicsScene
{
    Q_OBJECT

public:
    explicit LineageScene(QObject *parent = nullptr);

    /// Creates items for new nodes and edges, moves all to the layout and hides the hidden ones.
    void applyLayout(const LineageGraph &graph, const LineageLayout &layout);
    /// Colours, labels and highlights from the graph's results.
    void applyLook(const LineageGraph &graph, const LineageHighlights &highlights);
    void clearLineage();

    LineageNodeItem *nodeItem(int index) const { return m_nodes.value(index); }
    int nodeItemCount() const { return int(m_nodes.size()); }
    const QVector<LineageEdgeItem *> &edgeItems() const { return m_edges; }
    const LineageLayout &layout() const { return m_layout; }
    bool isNodeVisible(int index) const;

    static QColor outcomeColor(LineageOutcome outcome, double speedup);
    static LineageLayoutMetrics metrics() { return {}; }

private:
    QVector<LineageNodeItem *> m_nodes; // By node index; owned by the scene.
    QVector<LineageEdgeItem *> m_edges; // Owned by the scene.
    QSet<quint64> m_edgeKeys;
    LineageLayout m_layout;
};

} // namespace kx::ui
