#include "ui/lineage/lineagecontrols.h"

#include "ui/lineage/lineagegraph.h"
#include "ui/lineage/lineagepage.h"
#include "ui/lineage/lineagescene.h"
#include "ui/lineage/lineageview.h"

#include <QAction>
#include <QGridLayout>
#include <QLabel>
#include <QMenu>
#include <QToolButton>

#include <algorithm>

namespace kx::ui {

void connectZoomActions(QAction *zoomIn, QAction *zoomOut, QAction *fit, LineageView *view)
{
    const auto shortcut = [](const QAction *action) { return action->shortcut().toString(QKeySequence::NativeText); };
    zoomIn->setObjectName(QStringLiteral("zoomInAction"));
    zoomIn->setShortcut(QKeySequence::ZoomIn);
    zoomIn->setToolTip(LineagePage::tr("Zoom in (%1, + or the mouse wheel)").arg(shortcut(zoomIn)));
    QObject::connect(zoomIn, &QAction::triggered, view, [view] { view->zoomBy(1.25); });
    zoomOut->setObjectName(QStringLiteral("zoomOutAction"));
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    zoomOut->setToolTip(LineagePage::tr("Zoom out (%1 or -)").arg(shortcut(zoomOut)));
    QObject::connect(zoomOut, &QAction::triggered, view, [view] { view->zoomBy(1 / 1.25); });
    fit->setObjectName(QStringLiteral("fitAction"));
    fit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    fit->setToolTip(LineagePage::tr("Fit the lineage into the view (%1 or F)").arg(shortcut(fit)));
    QObject::connect(fit, &QAction::triggered, view, &LineageView::fit);
    for (QAction *action : {zoomIn, zoomOut, fit})
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
}

QToolButton *actionButton(QAction *action, QWidget *parent)
{
    auto *button = new QToolButton(parent);
    button->setDefaultAction(action);
    button->setToolButtonStyle(action->icon().isNull() ? Qt::ToolButtonTextOnly : Qt::ToolButtonIconOnly);
    button->setAutoRaise(true);
    return button;
}

// The views that hide nodes, as one drop-down button: the bar stays narrow enough for a 1440-pixel window.
QToolButton *viewsButton(const QList<QAction *> &views, QWidget *parent)
{
    auto *button = new QToolButton(parent);
    button->setObjectName(QStringLiteral("lineageViews"));
    button->setText(LineagePage::tr("Views"));
    button->setToolTip(LineagePage::tr("Hide part of a large lineage: failed branches, all but the elite, grouped "
                                       "failures"));
    button->setPopupMode(QToolButton::InstantPopup);
    button->setAutoRaise(true);
    auto *menu = new QMenu(button);
    menu->addActions(views);
    button->setMenu(menu);
    // Bold while any of them hides something, so a partial lineage never passes for the whole run.
    const auto mark = [button, views] {
        QFont font = button->font();
        font.setBold(std::any_of(views.begin(), views.end(), [](QAction *view) { return view->isChecked(); }));
        button->setFont(font);
    };
    for (QAction *view : views)
        QObject::connect(view, &QAction::toggled, button, mark);
    return button;
}

QWidget *lineageLegend(QWidget *parent)
{
    auto *widget = new QWidget(parent);
    auto *grid = new QGridLayout(widget);
    grid->setContentsMargins(0, 0, 0, 0);
    const std::pair<QColor, QString> entries[] = {
        {LineageScene::outcomeColor(LineageOutcome::Correct, 8.0), LineagePage::tr("correct, 8× faster")},
        {LineageScene::outcomeColor(LineageOutcome::Correct, 1.5), LineagePage::tr("correct, 1.5× faster")},
        {LineageScene::outcomeColor(LineageOutcome::Correct, 0.5), LineagePage::tr("correct, slower")},
        {LineageScene::outcomeColor(LineageOutcome::Incorrect, 0), LineagePage::tr("incorrect")},
        {LineageScene::outcomeColor(LineageOutcome::Failure, 0), LineagePage::tr("timeout, crash, fault")},
        {LineageScene::outcomeColor(LineageOutcome::CompileError, 0), LineagePage::tr("compile error")},
        {LineageScene::outcomeColor(LineageOutcome::Pending, 0), LineagePage::tr("not evaluated yet")},
    };
    int row = 0;
    for (const auto &[color, text] : entries) {
        auto *swatch = new QLabel(widget);
        swatch->setFixedSize(14, 14);
        swatch->setAutoFillBackground(true);
        QPalette palette = swatch->palette();
        palette.setColor(QPalette::Window, color);
        swatch->setPalette(palette);
        grid->addWidget(swatch, row, 0);
        grid->addWidget(new QLabel(text, widget), row, 1);
        ++row;
    }
    grid->setColumnStretch(1, 1);
    return widget;
}

} // namespace kx::ui
