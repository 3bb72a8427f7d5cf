#include "ui/lineage/lineagenodeitem.h"

#include <QApplication>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>
#include <QPalette>
#include <QStyleOptionGraphicsItem>

namespace kx::ui {

namespace {

// Below these scales text is unreadable: skip it (the main cost of painting thousands of nodes).
constexpr qreal kTextDetail = 0.45;
constexpr qreal kOutlineDetail = 0.15;

QColor textColorOn(const QColor &fill)
{
    return fill.lightnessF() > 0.6 ? QColor(Qt::black) : QColor(Qt::white);
}

} // namespace

LineageNodeItem::LineageNodeItem(int index, const QSizeF &size)
    : m_index(index)
    , m_rect(QPointF(-size.width() / 2, -size.height() / 2), size)
{
    setFlag(ItemIsSelectable);
    setZValue(1);
}

void LineageNodeItem::setLook(const Look &look)
{
    if (look == m_look)
        return; // Restyling thousands of nodes during a live run mostly changes nothing.
    m_look = look;
    setToolTip(look.title + QLatin1Char('\n') + look.detail);
    update();
}

QRectF LineageNodeItem::boundingRect() const
{
    return m_rect.adjusted(-4, -8, 8, 4); // Room for the selection frame and the verdict badge.
}

void LineageNodeItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *)
{
    const qreal detail = option->levelOfDetailFromTransform(painter->worldTransform());
    const QPalette palette = QApplication::palette();
    const bool selected = isSelected();

    if (detail < kOutlineDetail) {
        painter->fillRect(m_rect, selected ? palette.color(QPalette::Highlight) : m_look.fill);
        return;
    }

    QPen pen(palette.color(QPalette::WindowText), 1);
    if (m_look.onPath)
        pen = QPen(palette.color(QPalette::Link), 3);
    if (m_look.match)
        pen = QPen(QColor(0xf0, 0xc0, 0x00), 4);
    if (selected)
        pen = QPen(palette.color(QPalette::Highlight), 4);
    painter->setPen(pen);
    painter->setBrush(m_look.fill);
    painter->drawRoundedRect(m_rect, 6, 6);

    if (detail < kTextDetail)
        return;

    painter->setPen(textColorOn(m_look.fill));
    QFont font = painter->font();
    font.setPointSizeF(9);
    font.setBold(m_look.best);
    painter->setFont(font);
    const QRectF text = m_rect.adjusted(6, 3, -6, -3);
    painter->drawText(text, Qt::AlignLeft | Qt::AlignTop, m_look.title);
    font.setBold(false);
    painter->setFont(font);
    painter->drawText(text, Qt::AlignLeft | Qt::AlignBottom, m_look.detail);
    if (m_look.hiddenChildren > 0)
        painter->drawText(text, Qt::AlignRight | Qt::AlignBottom, QStringLiteral("+%1").arg(m_look.hiddenChildren));

    if (m_look.accepted) {
        const QRectF badge(m_rect.right() - 10, m_rect.top() - 6, 16, 16);
        painter->setPen(QPen(palette.color(QPalette::Base), 1.5));
        painter->setBrush(*m_look.accepted ? QColor(0x2f, 0x9e, 0x44) : QColor(0xe0, 0x31, 0x31));
        painter->drawEllipse(badge);
        painter->setPen(QPen(Qt::white, 2));
        const QPointF c = badge.center();
        if (*m_look.accepted) {
            painter->drawPolyline(QPolygonF({c + QPointF(-4, 0), c + QPointF(-1, 3), c + QPointF(4, -3)}));
        } else {
            painter->drawLine(c + QPointF(-3, -3), c + QPointF(3, 3));
            painter->drawLine(c + QPointF(-3, 3), c + QPointF(3, -3));
        }
    }
}

LineageEdgeItem::LineageEdgeItem(int parent, int child, bool secondParent)
    : m_parent(parent)
    , m_child(child)
    , m_secondParent(secondParent)
{
    setZValue(0);
}

void LineageEdgeItem::setEnds(const QPointF &from, const QPointF &to)
{
    if (from == m_from && to == m_to)
        return;
    prepareGeometryChange();
    m_from = from;
    m_to = to;
}

void LineageEdgeItem::setLabel(const QString &label)
{
    m_label = label;
    update();
}

void LineageEdgeItem::setHighlighted(bool highlighted)
{
    if (highlighted == m_highlighted)
        return;
    m_highlighted = highlighted;
    setZValue(highlighted ? 0.5 : 0);
    update();
}

QRectF LineageEdgeItem::boundingRect() const
{
    return QRectF(m_from, m_to).normalized().adjusted(-60, -4, 60, 4);
}

void LineageEdgeItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *)
{
    const qreal detail = option->levelOfDetailFromTransform(painter->worldTransform());
    const QPalette palette = QApplication::palette();
    QColor color = m_highlighted ? palette.color(QPalette::Link) : palette.color(QPalette::Mid);
    QPen pen(color, m_highlighted ? 3 : 1.2);
    if (m_secondParent)
        pen.setStyle(Qt::DashLine);
    painter->setPen(pen);
    if (detail < kOutlineDetail) {
        painter->drawLine(m_from, m_to);
        return;
    }
    const qreal midY = (m_from.y() + m_to.y()) / 2;
    QPainterPath path(m_from);
    path.cubicTo(QPointF(m_from.x(), midY), QPointF(m_to.x(), midY), m_to);
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path);
    // A crossover's label sits on its first parent's edge only; both edges end at the same child.
    if (detail < kTextDetail || m_label.isEmpty() || m_secondParent)
        return;
    QFont font = painter->font();
    font.setPointSizeF(8);
    painter->setFont(font);
    painter->setPen(palette.color(QPalette::WindowText));
    // Near the child: edges fan out from a parent, so labels there would pile up.
    const QPointF mid = path.pointAtPercent(0.78);
    const QRectF box(mid.x() - 58, mid.y() - 8, 116, 16);
    painter->drawText(box, Qt::AlignCenter, m_label);
}

} // namespace kx::ui
