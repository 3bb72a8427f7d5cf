#include "ui/window/recentarchives.h"

#include "ui/common/format.h"

#include <QAction>
#include <QMenu>

#include <QFileInfo>
#include <QSettings>

namespace kx::ui {

namespace {

const char kSettingsKey[] = "recentArchives";

QString normalized(const QString &path)
{
    return QFileInfo(path).absoluteFilePath();
}

} // namespace

RecentArchives::RecentArchives(QObject *parent)
    : QObject(parent)
{
    const QStringList stored = QSettings().value(QLatin1String(kSettingsKey)).toStringList();
    for (const QString &path : stored) {
        if (!path.isEmpty() && !m_paths.contains(normalized(path)) && m_paths.size() < kMaxEntries)
            m_paths.append(normalized(path));
    }
}

void RecentArchives::add(const QString &path)
{
    const QString entry = normalized(path);
    if (!m_paths.isEmpty() && m_paths.first() == entry)
        return;
    m_paths.removeAll(entry);
    m_paths.prepend(entry);
    while (m_paths.size() > kMaxEntries)
        m_paths.removeLast();
    store();
}

void RecentArchives::remove(const QString &path)
{
    if (m_paths.removeAll(normalized(path)) > 0)
        store();
}

void RecentArchives::clear()
{
    if (m_paths.isEmpty())
        return;
    m_paths.clear();
    store();
}

void RecentArchives::store()
{
    QSettings().setValue(QLatin1String(kSettingsKey), m_paths);
    emit changed();
}

void RecentArchives::fillMenu(QMenu *menu, const std::function<void(const QString &)> &open)
{
    menu->clear();
    for (int i = 0; i < m_paths.size(); ++i) {
        const QString path = m_paths.at(i);
        const QString label =
            QStringLiteral("&%1  %2").arg(i + 1 < 10 ? QString::number(i + 1) : QString(), Format::path(path));
        QAction *action = menu->addAction(label, menu, [open, path] { open(path); });
        action->setToolTip(path);
    }
    if (!m_paths.isEmpty())
        menu->addSeparator();
    QAction *clearAction = menu->addAction(tr("&Clear List"), this, &RecentArchives::clear);
    clearAction->setEnabled(!m_paths.isEmpty());
}

} // namespace kx::ui
