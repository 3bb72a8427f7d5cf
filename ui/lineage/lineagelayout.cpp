#include "ui/lineage/lineagelayout.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace kx::ui {

LineageLayout layoutLineage(const LineageGraph &graph, const QVector<bool> &visible,
                            const LineageLayoutMetrics &metrics)
{
    const int n = graph.size();
    LineageLayout layout;
    layout.nodeCount = n;
    layout.positions.resize(n);
    layout.visible = visible.size() == n ? visible : QVector<bool>(n, true);

    std::map<int, QVector<int>> layers; // Generation -> visible nodes, in insertion order.
    for (int i = 0; i < n; ++i)
        if (layout.visible.at(i))
            layers[graph.node(i).generation].append(i);

    const qreal dx = metrics.nodeSize.width() + metrics.horizontalGap;
    const qreal dy = metrics.nodeSize.height() + metrics.verticalGap;
    QVector<bool> placed(n, false);
    QVector<qreal> key(n, 0);
    int row = 0;
    qreal nextRootX = 0; // Nodes without a placed parent line up after the previous ones of their layer.
    for (auto &[generation, nodes] : layers) {
        for (int i : nodes) {
            qreal sum = 0;
            int count = 0;
            for (int parent : graph.parents(i)) {
                if (placed.at(parent)) {
                    sum += layout.positions.at(parent).x();
                    ++count;
                }
            }
            key[i] = count ? sum / count : std::numeric_limits<qreal>::infinity();
        }
        std::stable_sort(nodes.begin(), nodes.end(), [&](int a, int b) { return key.at(a) < key.at(b); });
        // Siblings sit side by side centred under their parents: place at the key, push right on overlap,
        // then shift the whole layer back so that on average nodes sit where their parents want them.
        QVector<qreal> xs(nodes.size());
        qreal previous = -std::numeric_limits<qreal>::infinity();
        qreal drift = 0;
        int anchored = 0;
        for (int k = 0; k < nodes.size(); ++k) {
            const qreal want =
                std::isinf(key.at(nodes.at(k))) ? std::max(previous + dx, nextRootX) : key.at(nodes.at(k));
            xs[k] = std::max(want, previous + dx);
            if (!std::isinf(key.at(nodes.at(k)))) {
                drift += xs[k] - want;
                ++anchored;
            }
            previous = xs[k];
        }
        // Centre runs of siblings sharing one key around it (a parent's children spread both ways).
        const qreal shift = anchored ? drift / anchored : 0;
        for (int k = 0; k < nodes.size(); ++k) {
            layout.positions[nodes.at(k)] = QPointF(xs.at(k) - shift, row * dy);
            placed[nodes.at(k)] = true;
        }
        if (!nodes.isEmpty())
            nextRootX = std::max(nextRootX, xs.last() - shift + dx);
        ++row;
    }

    const qreal halfW = metrics.nodeSize.width() / 2;
    const qreal halfH = metrics.nodeSize.height() / 2;
    bool first = true;
    for (int i = 0; i < n; ++i) {
        if (!layout.visible.at(i))
            continue;
        const QRectF box(layout.positions.at(i) - QPointF(halfW, halfH), metrics.nodeSize);
        layout.bounds = first ? box : layout.bounds.united(box);
        first = false;
    }
    return layout;
}

} // namespace kx::ui
