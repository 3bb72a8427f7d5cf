#pragma once

#include <QObject>
#include <QStringList>

#include <functional>

class QMenu;

namespace kx::ui {

/// The most recently opened archives, newest first, kept in QSettings.
class RecentArchives : public QObject
{
    Q_OBJECT

public:
    static constexpr int kMaxEntries = 10;

    explicit RecentArchives(QObject *parent = nullptr);

    QStringList paths() const { return m_paths; }
    void add(const QString &path);
    void remove(const QString &path);
    void clear();
    /// Fills menu with the archives (numbered, newest first; open is called with the chosen path) and Clear List.
    void fillMenu(QMenu *menu, const std::function<void(const QString &)> &open);

signals:
    void changed();

private:
    void store();

    QStringList m_paths;
};

} // namespace kx::ui
