#pragma once

#include <QPixmap>
#include <QWidget>

namespace kx::ui {

class LineageView;

/// A minimap of the whole lineage with the main view's visible area framed; click or drag to move there.
/// The scene is rendered into a pixmap only when it changes, so scrolling the main view stays cheap.
class LineageOverview : public QWidget
{
    Q_OBJECT

public:
    explicit LineageOverview(LineageView *view, QWidget *parent = nullptr);

    /// Renders the scene again (after a new layout or colouring).
    void refresh();
    QSize sizeHint() const override { return {200, 160}; }
    /// The cached picture of the scene (null before there is one).
    const QPixmap &picture() const { return m_pixmap; }

protected:
    void changeEvent(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;

private:
    QRectF imageRect() const;
    void centerViewAt(const QPointF &widgetPos);

    LineageView *m_view; // Not owned
    QPixmap m_pixmap;
};

} // namespace kx::ui
