// Export Kernel in the window: KernelExporter runs the core export (tests/export) off the GUI thread and reports
// the folder or the reason through the window.
#include "ui/window/mainwindow.h"

#include "core/archive/archive.h"
#include "core/archive/archivejson.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace kx;
using namespace kx::ui;

namespace {

const char kAccepted[] = "e8fbd32f7a1f58b1aa0d14118d7d47b10721acd5d22040e47e5925b3194f450c";
const char kUnreviewed[] = "befc282af6a7f5aa3b7f11ff4a69e94620eb702fdda8d950578f8a5ff9d3abcc";

QString readText(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

} // namespace

class TestKernelExporter : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void windowExportsAcceptedKernel();

private:
    QTemporaryDir m_dir;
    QString m_path;
};

void TestKernelExporter::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("KernelExplorerTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_kernelexporter"));
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
    m_path = m_dir.filePath(QStringLiteral("sample.kxdb"));
    auto archive = Archive::open(QFile::encodeName(m_path).toStdString());
    QVERIFY(archive);
    std::ifstream in(KX_TEST_DATA_DIR "/sample-archive.json");
    QVERIFY(importArchive(**archive, nlohmann::json::parse(in)));
}

void TestKernelExporter::windowExportsAcceptedKernel()
{
    MainWindow window;
    QStringList reported;
    window.setErrorHandler([&reported](const QString &, const QString &message) { reported << message; });
    QVERIFY(window.openArchive(m_path));
    QSignalSpy exported(&window, &MainWindow::kernelExported);
    const QString parent = m_dir.filePath(QStringLiteral("export3"));
    window.exportKernel(QString::fromLatin1(kAccepted), parent);
    QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, 10000);
    const QString folder = exported.first().first().toString();
    QVERIFY(QFileInfo::exists(folder + QStringLiteral("/extension.cpp")));
    QCOMPARE(QDir(folder).dirName(), QStringLiteral("relu_e8fbd32f7a1f"));
    QVERIFY(reported.isEmpty());

    // The window exports a kernel again into the same folder, its three files replaced (kx export needs --force).
    QFile edited(folder + QStringLiteral("/kernel.cu"));
    QVERIFY(edited.open(QIODevice::WriteOnly | QIODevice::Truncate));
    edited.write("// edited by hand");
    edited.close();
    window.exportKernel(QString::fromLatin1(kAccepted), parent);
    QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 2, 10000);
    QCOMPARE(exported.last().first().toString(), folder);
    QVERIFY(readText(folder + QStringLiteral("/kernel.cu")).contains(QLatin1String("__global__")));
    QVERIFY(reported.isEmpty());

    window.exportKernel(QString::fromLatin1(kUnreviewed), parent);
    QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 3, 10000);
    QCOMPARE(exported.last().first().toString(), QString());
    QCOMPARE(reported.size(), 1);
    QVERIFY(reported.first().contains(QLatin1String("accepted")));
}

QTEST_MAIN(TestKernelExporter)
#include "tst_kernelexporter.moc"
