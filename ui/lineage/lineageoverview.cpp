#include "ui/lineage/lineageoverview.h"

#include "ui/lineage/lineageview.h"

#include <QEvent>
#include <QGraphicsScene>
#include <QMouseEvent>
#include <QPainter>

namespace kx::ui {

LineageOverview::LineageOverview(LineageView *view, QWidget *parent)
    : QWidget(parent)
    , m_view(view)
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    setToolTip(tr("Overview: click or drag to move the view"));
    setCursor(Qt::PointingHandCursor);
    connect(m_view, &LineageView::viewportChanged, this, qOverload<>(&QWidget::update));
}

void LineageOverview::refresh()
{
    QGraphicsScene *scene = m_view->scene();
    m_pixmap = QPixmap();
    if (scene && !scene->sceneRect().isEmpty() && width() > 2 && height() > 2) {
        m_pixmap = QPixmap(size() * devicePixelRatioF());
        m_pixmap.setDevicePixelRatio(devicePixelRatioF());
        m_pixmap.fill(palette().color(QPalette::Base));
        QPainter painter(&m_pixmap);
        scene->render(&painter, QRectF(QPointF(0, 0), QSizeF(size())), scene->sceneRect(), Qt::KeepAspectRatio);
    }
    update();
}

QRectF LineageOverview::imageRect() const
{
    // Where the scene rect lies in the widget: render() keeps the aspect ratio, aligned top left.
    const QRectF scene = m_view->scene() ? m_view->scene()->sceneRect() : QRectF();
    if (scene.isEmpty())
        return {};
    const qreal s = std::min(width() / scene.width(), height() / scene.height());
    return QRectF(QPointF(0, 0), scene.size() * s);
}

void LineageOverview::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Base));
    if (!m_pixmap.isNull())
        painter.drawPixmap(0, 0, m_pixmap);
    const QRectF image = imageRect();
    if (!image.isEmpty()) {
        const QRectF scene = m_view->scene()->sceneRect();
        const QRectF visible = m_view->mapToScene(m_view->viewport()->rect()).boundingRect().intersected(scene);
        const qreal s = image.width() / scene.width();
        const QRectF frame(image.topLeft() + (visible.topLeft() - scene.topLeft()) * s, visible.size() * s);
        painter.setPen(QPen(palette().color(QPalette::Highlight), 2));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(frame.adjusted(1, 1, -1, -1));
    }
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawRect(rect().adjusted(0, 0, -1, -1));
}

void LineageOverview::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        refresh(); // The cached picture has the old palette's colours.
}

void LineageOverview::resizeEvent(QResizeEvent *)
{
    refresh();
}

void LineageOverview::centerViewAt(const QPointF &widgetPos)
{
    const QRectF image = imageRect();
    if (image.isEmpty())
        return;
    const QRectF scene = m_view->scene()->sceneRect();
    const qreal s = scene.width() / image.width();
    m_view->centerOn(scene.topLeft() + (widgetPos - image.topLeft()) * s);
    update();
}

void LineageOverview::mousePressEvent(QMouseEvent *event)
{
    centerViewAt(event->position());
}

void LineageOverview::mouseMoveEvent(QMouseEvent *event)
{
    if (event->buttons() & Qt::LeftButton)
        centerViewAt(event->position());
}

} // namespace kx::ui
