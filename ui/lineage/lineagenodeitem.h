#pragma once

#include <QColor>
#include <QGraphicsItem>
#include <QString>

#include <optional>

namespace kx::ui {

/// One candidate in the lineage scene. Paints by level of detail: a plain box when zoomed out, id, result
/// and verdict badge when close enough to read them.
class LineageNodeItem : public QGraphicsItem
{
public:
    enum { Type = UserType + 1 };

    LineageNodeItem(int index, const QSizeF &size);

    int type() const override { return Type; }
    int index() const { return m_index; }

    struct Look
    {
        QString title;  ///< Short id.
        QString detail; ///< Speedup or status.
        QColor fill;
        std::optional<bool> accepted;
        bool match = false;  ///< Search hit.
        bool onPath = false; ///< On the path from the root to the best.
        bool best = false;
        int hiddenChildren = 0;  ///< Collapsed failed children.
        int groupedFailures = 0; ///< Failures of its generation it stands for (itself included).

        bool operator==(const Look &) const = default;
    };
    void setLook(const Look &look);
    const Look &look() const { return m_look; }

    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    int m_index;
    QRectF m_rect;
    Look m_look;
};

/// A parent-to-child link, labelled with the operator that made the child.
class LineageEdgeItem : public QGraphicsItem
{
public:
    enum { Type = UserType + 2 };

    LineageEdgeItem(int parent, int child, bool secondParent);

    int type() const override { return Type; }
    int parent() const { return m_parent; }
    int child() const { return m_child; }
    bool isSecondParent() const { return m_secondParent; }

    void setEnds(const QPointF &from, const QPointF &to);
    void setLabel(const QString &label);
    QString label() const { return m_label; }
    void setHighlighted(bool highlighted);

    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    int m_parent;
    int m_child;
    bool m_secondParent;
    bool m_highlighted = false;
    QPointF m_from;
    QPointF m_to;
    QString m_label;
};

} // namespace kx::ui
