// The recent archives list: order, duplicates, its limit, and persistence in QSettings.
#include "ui/window/recentarchives.h"

#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace kx::ui;

class TestRecentArchives : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void newestFirstWithoutDuplicates();
    void keepsAtMostTheLimit();
    void removeAndClear();
    void persists();

private:
    QString path(const QString &name) const { return m_dir.filePath(name); }
    QTemporaryDir m_dir;
};

void TestRecentArchives::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("KernelExplorerTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_recentarchives"));
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
}

void TestRecentArchives::init()
{
    QSettings().clear();
}

void TestRecentArchives::newestFirstWithoutDuplicates()
{
    RecentArchives recent;
    QSignalSpy changed(&recent, &RecentArchives::changed);
    recent.add(path("a.kxdb"));
    recent.add(path("b.kxdb"));
    recent.add(path("a.kxdb"));
    QCOMPARE(recent.paths(), (QStringList{path("a.kxdb"), path("b.kxdb")}));
    QCOMPARE(changed.size(), 3);
    recent.add(path("a.kxdb")); // Already first: nothing changes.
    QCOMPARE(changed.size(), 3);
    // Relative and absolute spellings of one file are one entry.
    recent.add(QDir(QDir::currentPath()).relativeFilePath(path("b.kxdb")));
    QCOMPARE(recent.paths(), (QStringList{path("b.kxdb"), path("a.kxdb")}));
}

void TestRecentArchives::keepsAtMostTheLimit()
{
    RecentArchives recent;
    for (int i = 0; i < RecentArchives::kMaxEntries + 3; ++i)
        recent.add(path(QStringLiteral("%1.kxdb").arg(i)));
    QCOMPARE(recent.paths().size(), RecentArchives::kMaxEntries);
    QCOMPARE(recent.paths().first(), path(QStringLiteral("%1.kxdb").arg(RecentArchives::kMaxEntries + 2)));
    QCOMPARE(recent.paths().last(), path(QStringLiteral("3.kxdb")));
}

void TestRecentArchives::removeAndClear()
{
    RecentArchives recent;
    recent.add(path("a.kxdb"));
    recent.add(path("b.kxdb"));
    QSignalSpy changed(&recent, &RecentArchives::changed);
    recent.remove(path("missing.kxdb"));
    QCOMPARE(changed.size(), 0);
    recent.remove(path("a.kxdb"));
    QCOMPARE(recent.paths(), QStringList{path("b.kxdb")});
    recent.clear();
    QVERIFY(recent.paths().isEmpty());
    QCOMPARE(changed.size(), 2);
}

void TestRecentArchives::persists()
{
    {
        RecentArchives recent;
        recent.add(path("a.kxdb"));
        recent.add(path("b.kxdb"));
    }
    RecentArchives reloaded;
    QCOMPARE(reloaded.paths(), (QStringList{path("b.kxdb"), path("a.kxdb")}));
}

QTEST_MAIN(TestRecentArchives)
#include "tst_recentarchives.moc"
