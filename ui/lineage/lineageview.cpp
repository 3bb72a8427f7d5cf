#include "ui/lineage/lineageview.h"

#include <QKeyEvent>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace kx::ui {

namespace {

constexpr qreal kMinZoom = 0.01;
constexpr qreal kMaxZoom = 4.0;

} // namespace

LineageView::LineageView(QWidget *parent)
    : QGraphicsView(parent)
{
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setRenderHint(QPainter::Antialiasing);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    // Every item sets the pen, brush and font it draws with, so the view need not save the state per item.
    setOptimizationFlags(QGraphicsView::DontSavePainterState | QGraphicsView::DontAdjustForAntialiasing);
    setBackgroundRole(QPalette::Base);
    setFocusPolicy(Qt::StrongFocus);
}

void LineageView::zoomBy(qreal factor)
{
    const qreal target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
    const qreal applied = target / zoom();
    if (std::abs(applied - 1.0) < 1e-9)
        return;
    scale(applied, applied);
    emit viewportChanged();
}

void LineageView::fit()
{
    if (!scene() || scene()->sceneRect().isEmpty())
        return;
    fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
    // Very tall lineages would shrink to nothing: keep nodes at least outline size, centred on the top.
    if (zoom() < 0.05) {
        resetTransform();
        scale(0.05, 0.05);
        centerOn(scene()->sceneRect().center().x(), scene()->sceneRect().top());
    } else if (zoom() > 1.0) {
        resetTransform();
        centerOn(scene()->sceneRect().center());
    }
    emit viewportChanged();
}

void LineageView::wheelEvent(QWheelEvent *event)
{
    if (event->modifiers() & (Qt::ShiftModifier | Qt::AltModifier)) {
        QGraphicsView::wheelEvent(event); // Scroll instead of zoom.
        return;
    }
    const qreal steps = event->angleDelta().y() / 120.0;
    if (steps != 0)
        zoomBy(std::pow(1.2, steps));
    event->accept();
}

void LineageView::keyPressEvent(QKeyEvent *event)
{
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomBy(1.25); return;
    case Qt::Key_Minus: zoomBy(1 / 1.25); return;
    case Qt::Key_F: fit(); return;
    case Qt::Key_Up: emit navigate(Direction::Parent); return;
    case Qt::Key_Down: emit navigate(Direction::FirstChild); return;
    case Qt::Key_Left: emit navigate(Direction::PreviousSibling); return;
    case Qt::Key_Right: emit navigate(Direction::NextSibling); return;
    default: break;
    }
    QGraphicsView::keyPressEvent(event);
}

void LineageView::scrollContentsBy(int dx, int dy)
{
    QGraphicsView::scrollContentsBy(dx, dy);
    emit viewportChanged();
}

} // namespace kx::ui
