#pragma once

#include <QList>

class QAction;
class QToolButton;
class QWidget;

namespace kx::ui {

class LineageView;

/// A flat button for an action: its icon, or its text where it has none.
QToolButton *actionButton(QAction *action, QWidget *parent);

/// The views that hide nodes (checkable actions) as one drop-down button, bold while any of them is on.
QToolButton *viewsButton(const QList<QAction *> &views, QWidget *parent);

/// Gives the zoom actions their names, shortcuts and tool tips and connects them to the view. Their shortcuts act
/// while the page has the focus, in the View menu too.
void connectZoomActions(QAction *zoomIn, QAction *zoomOut, QAction *fit, LineageView *view);

/// What the lineage's colours mean.
QWidget *lineageLegend(QWidget *parent);

} // namespace kx::ui
