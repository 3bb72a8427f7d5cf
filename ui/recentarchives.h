#pragma once

#include <QObject>
#include <QStringList>

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

signals:
    void changed();

private:
    void store();

    QStringList m_paths;
};

} // namespace kx::ui
