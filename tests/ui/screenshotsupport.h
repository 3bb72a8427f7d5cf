#pragma once
// Pictures for docs/screenshots: the suites that show a whole view save one when KX_SCREENSHOT_DIR names a folder
// (docs/screenshots/make-screenshots.sh sets it). Their archives lie in a home folder of the test's own, so that
// the window shows "~/kernels/NAME.kxdb", as it would for a user, instead of a temporary path.
#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QPixmap>
#include <QString>
#include <QTest>
#include <QWidget>

namespace kx::test {

/// Makes folder the home folder of this process (it is created) and returns it.
inline QString useAsHome(const QString &folder)
{
    QDir().mkpath(folder);
    qputenv("HOME", QFile::encodeName(folder));
    return folder;
}

/// Where a user's archive NAME.kxdb would lie: ~/kernels/NAME.kxdb under the home folder (created).
inline QString homeArchivePath(const QString &name)
{
    const QString folder = QDir::home().filePath(QStringLiteral("kernels"));
    QDir().mkpath(folder);
    return QDir(folder).filePath(name + QStringLiteral(".kxdb"));
}

/// Saves an image of the widget as KX_SCREENSHOT_DIR/name; does nothing when the variable is not set.
inline void saveScreenshot(QWidget *widget, const QString &name)
{
    const QString dir = qEnvironmentVariable("KX_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        QVERIFY2(widget->grab().save(QDir(dir).filePath(name)), qPrintable(QDir(dir).filePath(name)));
}

} // namespace kx::test
