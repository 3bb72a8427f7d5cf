// Exporting an accepted kernel: the .cu, the launch plan and a PyTorch extension that launches it.
#include "ui/kernels/kernelexport.h"
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

class TestKernelExport : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void writesSourcePlanAndExtension();
    void extensionBindsShapesAndLaunches();
    void refusesUnacceptedKernels();
    void refusesPlansItCannotLaunch();
    void windowExportsAcceptedKernel();

private:
    QTemporaryDir m_dir;
    QString m_path;
    std::unique_ptr<Archive> m_archive;
    Candidate m_accepted;
    Op m_op;
};

void TestKernelExport::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("KernelExplorerTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_kernelexport"));
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
    m_path = m_dir.filePath(QStringLiteral("sample.kxdb"));
    auto archive = Archive::open(QFile::encodeName(m_path).toStdString());
    QVERIFY(archive);
    m_archive = std::move(*archive);
    std::ifstream in(KX_TEST_DATA_DIR "/sample-archive.json");
    QVERIFY(importArchive(*m_archive, nlohmann::json::parse(in)));
    m_accepted = *m_archive->candidate(kAccepted);
    m_op = *m_archive->op("relu");
}

void TestKernelExport::writesSourcePlanAndExtension()
{
    const QString parent = m_dir.filePath(QStringLiteral("export1"));
    const auto result = KernelExport::write(m_accepted, m_op, m_archive->currentVerdict(kAccepted), parent);
    QVERIFY2(result, result ? "" : result.error().message.c_str());
    QVERIFY(result->folder.startsWith(parent));
    QVERIFY(QDir(result->folder).dirName().startsWith(QLatin1String("relu_")));
    QCOMPARE(result->files.size(), 3);
    const QDir folder(result->folder);
    for (const char *name : {"kernel.cu", "launch_plan.json", "extension.cpp"})
        QVERIFY2(folder.exists(QLatin1String(name)), name);
    QCOMPARE(readText(folder.filePath(QStringLiteral("kernel.cu"))), QString::fromStdString(m_accepted.source));
    QCOMPARE(readText(folder.filePath(QStringLiteral("launch_plan.json"))), QString::fromStdString(m_accepted.launchPlan));
    const QString extension = readText(folder.filePath(QStringLiteral("extension.cpp")));
    QVERIFY(extension.contains(QLatin1String("torch.utils.cpp_extension")));
    QVERIFY(extension.contains(QLatin1String("Limits:")));
    QVERIFY(extension.contains(QLatin1String("PYBIND11_MODULE")));

    // Exporting again overwrites the same folder.
    const auto again = KernelExport::write(m_accepted, m_op, m_archive->currentVerdict(kAccepted), parent);
    QVERIFY(again);
    QCOMPARE(again->folder, result->folder);
}

void TestKernelExport::extensionBindsShapesAndLaunches()
{
    const auto source = KernelExport::extensionSource(m_accepted, m_op);
    QVERIFY(source);
    const QString text = QString::fromStdString(*source);
    // The fixed part comes from the bundled prelude: the extension's includes and the launch helpers.
    QVERIFY(text.contains(QLatin1String("#include <torch/extension.h>")));
    QVERIFY(text.contains(QLatin1String("inline int64_t ceil_div(int64_t a, int64_t b)")));
    QVERIFY(!text.contains(QLatin1String("#error")));
    // The kernel's host stub, declared with its parameters, launched through the runtime API.
    QVERIFY(text.contains(QLatin1String("void relu_kernel(const float*  x, float*  out, long n);")));
    QVERIFY(text.contains(QLatin1String("cudaLaunchKernel(reinterpret_cast<const void *>(&relu_kernel)")));
    // N comes from the input's shape at run time; grid/block from the plan (264 x 1024).
    QVERIFY(text.contains(QLatin1String("const int64_t N = x.size(0);")));
    QVERIFY(text.contains(QLatin1String("const dim3 grid(dim(264), dim(1), dim(1));")));
    QVERIFY(text.contains(QLatin1String("const dim3 block(dim(1024), dim(1), dim(1));")));
    QVERIFY(text.contains(QLatin1String("long a2 = static_cast<long>(N);")));
    QVERIFY(text.contains(QLatin1String("torch::Tensor out = torch::empty({N}")));
    QVERIFY(text.contains(QLatin1String("torch::Tensor forward(const torch::Tensor &x)")));

    // Expressions survive as expressions: the translated kernel's grid is ceil_div(N, 256).
    const Candidate translated = *m_archive->candidate("adf9f184100be56fb77740bb17870407d2917ee0e59456e5184a120f48e8e68e");
    const QString other = QString::fromStdString(*KernelExport::extensionSource(translated, m_op));
    QVERIFY(other.contains(QLatin1String("const dim3 grid(dim(ceil_div(N, 256)), dim(1), dim(1));")));
}

void TestKernelExport::refusesUnacceptedKernels()
{
    const Candidate unreviewed = *m_archive->candidate(kUnreviewed);
    const QString parent = m_dir.filePath(QStringLiteral("export2"));
    auto result = KernelExport::write(unreviewed, m_op, std::nullopt, parent);
    QVERIFY(!result);
    QVERIFY(QString::fromStdString(result.error().message).contains(QLatin1String("accepted")));
    Verdict rejected;
    rejected.accepted = false;
    rejected.reasonCode = "incorrect";
    QVERIFY(!KernelExport::write(unreviewed, m_op, rejected, parent));
    QVERIFY(!QDir(parent).exists());
}

void TestKernelExport::refusesPlansItCannotLaunch()
{
    Candidate library = m_accepted;
    library.launchPlan = R"({"steps": [{"library": "aten::relu", "args": [{"input": "x"}, {"output": "out"}]}]})";
    auto result = KernelExport::extensionSource(library, m_op);
    QVERIFY(!result);
    QVERIFY(QString::fromStdString(result.error().message).contains(QLatin1String("library step")));

    Candidate broken = m_accepted;
    broken.launchPlan = "{not json";
    QVERIFY(!KernelExport::extensionSource(broken, m_op));

    Candidate missingKernel = m_accepted;
    missingKernel.source = "extern \"C\" __global__ void other(const float* x, float* out, long n) {}";
    result = KernelExport::extensionSource(missingKernel, m_op);
    QVERIFY(!result);
    QVERIFY(QString::fromStdString(result.error().message).contains(QLatin1String("relu_kernel")));
}

void TestKernelExport::windowExportsAcceptedKernel()
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
    QVERIFY(reported.isEmpty());

    window.exportKernel(QString::fromLatin1(kUnreviewed), parent);
    QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 2, 10000);
    QCOMPARE(exported.last().first().toString(), QString());
    QCOMPARE(reported.size(), 1);
    QVERIFY(reported.first().contains(QLatin1String("accepted")));
}

QTEST_MAIN(TestKernelExport)
#include "tst_kernelexport.moc"
