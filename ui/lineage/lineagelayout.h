#pragma once

#include "ui/lineage/lineagegraph.h"

#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QVector>

namespace kx::ui {

/// Where the nodes of a lineage go: one row per generation, top to bottom.
struct LineageLayout
{
    QVector<QPointF> positions; ///< Centre of each node, indexed like the graph.
    QVector<bool> visible;      ///< Hidden nodes have no meaningful position.
    QRectF bounds;              ///< Of the visible nodes, including their size.
    int nodeCount = 0;          ///< The graph size this layout was made for.
};

struct LineageLayoutMetrics
{
    QSizeF nodeSize{128, 44};
    qreal horizontalGap = 28;
    qreal verticalGap = 76;
};

/**
 * Lays out a lineage in layers by generation. Within a layer nodes are sorted by the mean x of their
 * parents (barycentre heuristic, one downward pass, which removes most crossings of a tree-like lineage)
 * and then pushed apart left to right to keep their spacing. O(n log n); pure, so it runs on any thread.
 * visible may be empty (all visible); edges from hidden parents are ignored.
 */
LineageLayout layoutLineage(const LineageGraph &graph, const QVector<bool> &visible = {},
                            const LineageLayoutMetrics &metrics = {});

} // namespace kx::ui
