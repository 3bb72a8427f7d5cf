#pragma once

#include <QGraphicsView>

namespace kx::ui {

/// The lineage canvas: wheel and +/- zoom around the cursor, drag to pan, F fits, arrow keys navigate
/// (the page decides where to; see navigate()).
class LineageView : public QGraphicsView
{
    Q_OBJECT

public:
    enum class Direction { Parent, FirstChild, PreviousSibling, NextSibling };

    explicit LineageView(QWidget *parent = nullptr);

    void zoomBy(qreal factor);
    void fit();
    qreal zoom() const { return transform().m11(); }

signals:
    void navigate(kx::ui::LineageView::Direction direction);
    /// The visible part of the scene moved or was scaled.
    void viewportChanged();

protected:
    void wheelEvent(QWheelEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void scrollContentsBy(int dx, int dy) override;
};

} // namespace kx::ui
