// The main window's actions: icons on the frequent ones and on the toolbar, a shortcut for each frequent one,
// and no key sequence taken twice.
#include "ui/common/uiresources.h"
#include "ui/window/mainwindow.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QIcon>
#include <QImage>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>

#include <map>

using namespace kx::ui;

namespace {

/// Object names of the actions users reach often: each needs an icon, and all but the submenu a shortcut.
const QStringList kFrequent = {
    QStringLiteral("openOpAction"),         QStringLiteral("openPyTorchAction"),
    QStringLiteral("openArchiveAction"),    QStringLiteral("newArchiveAction"),
    QStringLiteral("reloadAction"),         QStringLiteral("startSearchAction"),
    QStringLiteral("pauseSearchAction"),    QStringLiteral("resumeSearchAction"),
    QStringLiteral("stopSearchAction"),     QStringLiteral("continueRunAction"),
    QStringLiteral("acceptAction"),         QStringLiteral("rejectAction"),
    QStringLiteral("undoAction"),           QStringLiteral("redoAction"),
    QStringLiteral("showPage3Action"),      QStringLiteral("exportKernelAction"),
    QStringLiteral("exportPlotAction"),     QStringLiteral("zoomInAction"),
    QStringLiteral("zoomOutAction"),        QStringLiteral("fitAction"),
    QStringLiteral("filterAction"),         QStringLiteral("proposerSettingsAction"),
    QStringLiteral("newCandidateAction"),   QStringLiteral("nextChangeAction"),
    QStringLiteral("previousChangeAction"),
};

/// Every action reachable from the menu bar, submenus included.
void collectMenuActions(const QList<QAction *> &actions, QList<QAction *> *out)
{
    for (QAction *action : actions) {
        if (action->isSeparator())
            continue;
        out->append(action);
        if (QMenu *menu = action->menu())
            collectMenuActions(menu->actions(), out);
    }
}

} // namespace

class TestActions : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void bundledIconsRender();
    void frequentActionsHaveIconsAndShortcuts();
    void toolBarActionsHaveIcons();
    void shortcutsAreUnique();

private:
    QTemporaryDir m_dir;
};

void TestActions::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("KernelExplorerTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_actions"));
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
}

void TestActions::bundledIconsRender()
{
    initResources();
    const QStringList names = QDir(QStringLiteral(":/icons")).entryList({QStringLiteral("*.svg")});
    QVERIFY(names.size() > 20);
    for (const QString &name : names) {
        const QIcon bundled = icon(QFileInfo(name).completeBaseName());
        const QImage image = bundled.pixmap(24, 24).toImage();
        QVERIFY2(!image.isNull(), qPrintable(name));
        // Something is drawn: an icon is not blank.
        bool drawn = false;
        for (int y = 0; y < image.height() && !drawn; ++y)
            for (int x = 0; x < image.width() && !drawn; ++x)
                drawn = qAlpha(image.pixel(x, y)) > 0;
        QVERIFY2(drawn, qPrintable(name));
    }
}

void TestActions::frequentActionsHaveIconsAndShortcuts()
{
    MainWindow window;
    QList<QAction *> actions;
    collectMenuActions(window.menuBar()->actions(), &actions);
    QStringList found;
    for (QAction *action : actions) {
        if (!kFrequent.contains(action->objectName()))
            continue;
        found << action->objectName();
        QVERIFY2(!action->icon().isNull(), qPrintable(action->objectName()));
        if (!action->menu())
            QVERIFY2(!action->shortcut().isEmpty(), qPrintable(action->objectName()));
    }
    for (const QString &name : kFrequent)
        QVERIFY2(found.contains(name), qPrintable(name + QStringLiteral(" is not in the menus")));
}

void TestActions::toolBarActionsHaveIcons()
{
    MainWindow window;
    const QList<QToolBar *> bars = window.findChildren<QToolBar *>();
    QVERIFY(!bars.isEmpty());
    for (QToolBar *bar : bars)
        for (QAction *action : bar->actions())
            if (!action->isSeparator())
                QVERIFY2(!action->icon().isNull(), qPrintable(action->text()));
}

void TestActions::shortcutsAreUnique()
{
    MainWindow window;
    std::map<QString, QString> owners; // Portable text of a key sequence -> the action's text.
    int count = 0;
    for (QAction *action : window.findChildren<QAction *>()) {
        for (const QKeySequence &sequence : action->shortcuts()) {
            if (sequence.isEmpty())
                continue;
            ++count;
            const QString key = sequence.toString(QKeySequence::PortableText);
            const auto [it, inserted] = owners.emplace(key, action->text());
            QVERIFY2(inserted, qPrintable(QStringLiteral("%1 is the shortcut of both \"%2\" and \"%3\"")
                                              .arg(key, it->second, action->text())));
        }
    }
    QVERIFY(count > 25);
}

QTEST_MAIN(TestActions)
#include "tst_actions.moc"
