// The kernel views of a candidate: compile statistics from its stored evaluation, PTX and SASS compiled on
// demand with the real NVRTC, and the checks a hand-edited kernel passes before it is stored.
#include "qtestprinters.h"

#include "ui/common/codeview.h"
#include "ui/common/format.h"
#include "ui/kernels/assemblyloader.h"
#include "ui/kernels/candidateview.h"
#include "ui/kernels/kernelsourceview.h"
#include "ui/kernels/manualcheck.h"

#include "core/ops/builtinops.h"
#include "core/plan/disassembler.h"
#include "core/plan/launchplan.h"
#include "core/plan/nvrtccompiler.h"
#include "core/search/templateproposer.h"

#include <QAction>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

using namespace kx;
using namespace kx::ui;

namespace {

constexpr int kCompileTimeoutMs = 60000;

const char kScaleKernel[] =
    R"(extern "C" __global__ void scale(const float *__restrict__ x, float *__restrict__ y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = 2.0f * x[i];
}
)";

CandidateDetails scaleDetails(const std::string &capability)
{
    CandidateDetails details;
    details.candidate.opName = "scale";
    details.candidate.source = kScaleKernel;
    details.candidate.launchPlan = "{}";
    details.candidate.id = makeCandidateId(details.candidate.source, details.candidate.launchPlan);
    Evaluation evaluation;
    evaluation.candidateId = details.candidate.id;
    evaluation.gpu.name = "Test GPU";
    evaluation.gpu.computeCapability = capability;
    evaluation.status = EvalStatus::Correct;
    evaluation.compile.registers = 37;
    evaluation.compile.spillBytes = 24;
    evaluation.compile.staticSharedBytes = 4096;
    evaluation.compile.compileMs = 81.5;
    evaluation.compile.log = "ptxas info    : Used 37 registers, used 0 barriers";
    details.evaluations.push_back(evaluation);
    return details;
}

} // namespace

class TestCandidateView : public QObject
{
    Q_OBJECT

private slots:
    void archFromCapability_data();
    void archFromCapability();
    void compileTabShowsStoredStats();
    void compileTabWithoutEvaluation();
    void ptxFromNvrtcForTheEvaluationsArch();
    void brokenKernelShowsCompilerMessage();
    void sourceAndPtxLinesAreLinkedBothWays();
    void newCandidateActionNeedsACandidate();
    void manualCheck_data();
    void manualCheck();
    void manualCheckAcceptsAGoodEdit();
    void includedFilesAreNeverShown();
};

void TestCandidateView::archFromCapability_data()
{
    QTest::addColumn<QString>("capability");
    QTest::addColumn<QString>("arch");
    QTest::newRow("hopper") << "9.0"
                            << "sm_90a"; // wgmma exists only in the arch-specific target
    QTest::newRow("ampere") << "8.6"
                            << "sm_86";
    QTest::newRow("blackwell") << "10.0"
                               << "sm_100";
    QTest::newRow("empty") << ""
                           << "sm_90a";
    QTest::newRow("garbage") << "nine"
                             << "sm_90a";
}

void TestCandidateView::archFromCapability()
{
    QFETCH(QString, capability);
    QFETCH(QString, arch);
    QCOMPARE(AssemblyLoader::archFromCapability(capability), arch);
}

void TestCandidateView::compileTabShowsStoredStats()
{
    CandidateView view;
    const QStringList titles = [&] {
        QStringList list;
        for (int i = 0; i < view.tabs()->count(); ++i)
            list << view.tabs()->tabText(i);
        return list;
    }();
    // Provenance is hidden unless a model or a command made the candidate (tst_provenance).
    QCOMPARE(titles,
             QStringList({"CUDA Source", "Launch Plan", "PyTorch Reference", "Compile", "PTX", "SASS", "Provenance"}));
    view.showDetails(scaleDetails("8.0"));
    const QString summary = view.compileSummary()->text();
    QVERIFY2(summary.contains(QStringLiteral("Registers: 37")), qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("spills: ") + Format::bytes(24)), qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("shared memory: ") + Format::bytes(4096)), qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("compile time: ") + Format::ms(81.5)), qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("Test GPU")), qPrintable(summary));
    QCOMPARE(view.compileLogView()->text(), QStringLiteral("ptxas info    : Used 37 registers, used 0 barriers"));
    QVERIFY(view.compileLogView()->isReadOnly());
    QVERIFY(view.ptxView()->isReadOnly());
    QVERIFY(view.sassView()->isReadOnly());
    QCOMPARE(view.targetArch(), QStringLiteral("sm_80"));
    // Nothing is compiled until PTX or SASS is shown.
    QVERIFY(!view.assemblyLoader()->isLoading());
}

void TestCandidateView::compileTabWithoutEvaluation()
{
    CandidateView view;
    CandidateDetails details = scaleDetails("8.0");
    details.evaluations.clear();
    view.showDetails(details);
    QVERIFY(view.compileSummary()->text().contains(QStringLiteral("No evaluation")));
    QVERIFY(view.compileLogView()->text().isEmpty());
    QCOMPARE(view.targetArch(), QStringLiteral("sm_90a"));
}

void TestCandidateView::ptxFromNvrtcForTheEvaluationsArch()
{
    if (!NvrtcCompiler::available())
        QSKIP("this build has no NVRTC");
    CandidateView view;
    view.showDetails(scaleDetails("8.0"));
    QSignalSpy loaded(view.assemblyLoader(), &AssemblyLoader::loaded);
    view.tabs()->setCurrentWidget(view.ptxView());
    QVERIFY(view.assemblyLoader()->isLoading());
    QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), kCompileTimeoutMs);
    const QString ptx = view.ptxView()->text();
    QVERIFY2(ptx.contains(QStringLiteral(".visible .entry scale")), qPrintable(ptx.left(400)));
    QVERIFY2(ptx.contains(QStringLiteral(".target sm_80")), qPrintable(ptx.left(400)));

    // SASS comes from the same compile: the disassembly, or one line saying why there is none.
    view.tabs()->setCurrentWidget(view.sassView());
    QCOMPARE(loaded.size(), 1);
    const QString sass = view.sassView()->text();
    if (Disassembler::findTool().empty()) {
        QVERIFY2(sass.startsWith(QStringLiteral("No SASS")), qPrintable(sass));
        QVERIFY(!sass.contains(QLatin1Char('\n')));
    } else {
        QVERIFY2(sass.contains(QStringLiteral("scale")), qPrintable(sass.left(400)));
    }

    // Another evaluation's GPU means another arch: compiled again.
    CandidateDetails details = scaleDetails("8.0");
    Evaluation hopper = details.evaluations.front();
    hopper.gpu.computeCapability = "9.0";
    hopper.compile.registers = 40;
    details.evaluations.push_back(hopper);
    view.showDetails(details);
    view.tabs()->setCurrentWidget(view.ptxView());
    view.selectEvaluation(1);
    QVERIFY(view.compileSummary()->text().contains(QStringLiteral("Registers: 40")));
    QTRY_VERIFY_WITH_TIMEOUT(loaded.size() == 2, kCompileTimeoutMs);
    QVERIFY(view.ptxView()->text().contains(QStringLiteral(".target sm_90")));
}

void TestCandidateView::sourceAndPtxLinesAreLinkedBothWays()
{
    if (!NvrtcCompiler::available())
        QSKIP("this build has no NVRTC");
    CandidateView view;
    view.showDetails(scaleDetails("9.0"));
    QSignalSpy loaded(view.assemblyLoader(), &AssemblyLoader::loaded);
    view.tabs()->setCurrentWidget(view.ptxView());
    QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), kCompileTimeoutMs);

    // The cursor on the store (source line 5) marks the PTX it became, the store among it. (QScintilla tells of
    // cursor moves when it updates its view: hence the waits.)
    const auto storeMarked = [&view] {
        for (const int line : view.ptxView()->highlightedLines())
            if (view.ptxView()->text(line).contains(QStringLiteral("st.global")))
                return true;
        return false;
    };
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.tabs()->setCurrentWidget(view.sourceView());
    view.sourceView()->setCursorPosition(4, 8);
    QTRY_VERIFY2(storeMarked(), qPrintable(view.ptxView()->text()));
    const std::vector<int> ptxLines = view.ptxView()->highlightedLines();
    // A line that made no code marks nothing.
    view.sourceView()->setCursorPosition(1, 0);
    QTRY_VERIFY(view.ptxView()->highlightedLines().empty());

    // The cursor on a PTX line of the store marks its source line, and every PTX line of it.
    view.tabs()->setCurrentWidget(view.ptxView());
    view.ptxView()->setCursorPosition(ptxLines.back(), 0);
    QTRY_COMPARE(view.sourceView()->highlightedLines(), std::vector<int>{4});
    QCOMPARE(view.ptxView()->highlightedLines(), ptxLines);
    // A declaration belongs to no source line.
    const QString ptx = view.ptxView()->text();
    view.ptxView()->setCursorPosition(int(ptx.left(ptx.indexOf(QStringLiteral(".target"))).count(QLatin1Char('\n'))),
                                      0);
    QTRY_VERIFY(view.sourceView()->highlightedLines().empty());

    // Another kernel: no marks left over.
    CandidateDetails other = scaleDetails("9.0");
    other.candidate.source += "// another\n";
    other.candidate.id = makeCandidateId(other.candidate.source, other.candidate.launchPlan);
    view.showDetails(other);
    QVERIFY(view.sourceView()->highlightedLines().empty());
    QVERIFY(view.ptxView()->highlightedLines().empty());
}

void TestCandidateView::brokenKernelShowsCompilerMessage()
{
    if (!NvrtcCompiler::available())
        QSKIP("this build has no NVRTC");
    CandidateView view;
    CandidateDetails details = scaleDetails("9.0");
    details.candidate.source = "extern \"C\" __global__ void broken(float *y)\n{\n    y[0] = undefined_name;\n}\n";
    details.candidate.id = makeCandidateId(details.candidate.source, details.candidate.launchPlan);
    view.showDetails(details);
    QSignalSpy loaded(view.assemblyLoader(), &AssemblyLoader::loaded);
    view.tabs()->setCurrentWidget(view.ptxView());
    QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), kCompileTimeoutMs);
    const QString text = view.ptxView()->text();
    QVERIFY2(text.contains(QStringLiteral("undefined_name")), qPrintable(text));
    QCOMPARE(view.sassView()->text(), text);
}

void TestCandidateView::newCandidateActionNeedsACandidate()
{
    CandidateView view;
    QAction *action = view.newCandidateAction();
    QCOMPARE(action->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_E));
    QVERIFY(!action->isEnabled());
    QSignalSpy requested(&view, &CandidateView::newCandidateRequested);
    const CandidateDetails details = scaleDetails("9.0");
    view.showDetails(details);
    QVERIFY(action->isEnabled());
    action->trigger();
    QCOMPARE(requested.size(), 1);
    QCOMPARE(requested.first().first().toString(), QString::fromStdString(details.candidate.id));
}

void TestCandidateView::manualCheck_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("plan");
    QTest::addColumn<QString>("expected");
    QTest::newRow("compile error with its line") << "extern \"C\" __global__ void k(float *y)\n{\n    y[0] = nope;\n}\n"
                                                 << "{}"
                                                 << "line 3: error";
    QTest::newRow("host code") << "int main() { return 0; }\n"
                               << "{}"
                               << "line 1";
    QTest::newRow("empty source") << "  \n"
                                  << "{}"
                                  << "empty";
    QTest::newRow("plan is not JSON") << QString::fromLatin1(kScaleKernel) << "{ steps: "
                                      << "Launch plan";
}

void TestCandidateView::manualCheck()
{
    if (!NvrtcCompiler::available())
        QSKIP("this build has no NVRTC");
    QFETCH(QString, source);
    QFETCH(QString, plan);
    QFETCH(QString, expected);
    const ManualCheckResult result = checkManualCandidate(*findBuiltInOp("relu"), source, plan);
    QVERIFY(!result.ok);
    const QString problems = result.problems.join(QLatin1Char('\n'));
    QVERIFY2(problems.contains(expected), qPrintable(problems));
}

void TestCandidateView::manualCheckAcceptsAGoodEdit()
{
    if (!NvrtcCompiler::available())
        QSKIP("this build has no NVRTC");
    // The translation of relu passes as it is; the same plan naming a kernel the source lacks does not.
    const Op *relu = findBuiltInOp("relu");
    QVERIFY(relu);
    const Expected<Candidate> translated = translateOp(*relu);
    QVERIFY(translated);
    const QString source = QString::fromStdString(translated->source);
    const QString plan = QString::fromStdString(translated->launchPlan);
    const ManualCheckResult good = checkManualCandidate(*relu, source, plan);
    QVERIFY2(good.ok, qPrintable(good.problems.join(QLatin1Char('\n'))));
    QVERIFY(good.kernels > 0);

    const std::vector<KernelSignature> kernels = parseKernelSignatures(translated->source);
    QVERIFY(!kernels.empty());
    const QString kernel = QString::fromStdString(kernels.front().name);
    QString renamed = plan;
    renamed.replace(QLatin1Char('"') + kernel + QLatin1Char('"'), QStringLiteral("\"missing_kernel\""));
    QVERIFY(renamed != plan);
    const ManualCheckResult bad = checkManualCandidate(*relu, source, renamed);
    QVERIFY(!bad.ok);
    QVERIFY2(bad.problems.join(QLatin1Char('\n')).contains(QStringLiteral("missing_kernel")),
             qPrintable(bad.problems.join(QLatin1Char('\n'))));
}

void TestCandidateView::includedFilesAreNeverShown()
{
    if (!NvrtcCompiler::available())
        QSKIP("this build has no NVRTC");
    // The manual check and the PTX/SASS view compile through the same include rule as the search.
    QFile passwd(QStringLiteral("/etc/passwd"));
    QVERIFY(passwd.open(QIODevice::ReadOnly));
    const QString firstLine = QString::fromUtf8(passwd.readLine()).trimmed();
    QVERIFY(firstLine.size() > 8);
    const QString source = QStringLiteral("#include \"/etc/passwd\"\n") + QString::fromLatin1(kScaleKernel);

    const ManualCheckResult checked = checkManualCandidate(*findBuiltInOp("relu"), source, QStringLiteral("{}"));
    QVERIFY(!checked.ok);
    const QString problems = checked.problems.join(QLatin1Char('\n'));
    QVERIFY2(problems.contains(QStringLiteral("#include \"/etc/passwd\" is not allowed")), qPrintable(problems));
    QVERIFY2(problems.contains(QStringLiteral("cuda_fp16.h")), qPrintable(problems));
    QVERIFY2(!problems.contains(firstLine), qPrintable(problems));

    const AssemblyResult assembled = AssemblyLoader::assemble(QStringLiteral("c1"), source, QStringLiteral("sm_90"));
    QVERIFY(!assembled.ok);
    QVERIFY2(assembled.error.contains(QStringLiteral("is not allowed")), qPrintable(assembled.error));
    QVERIFY2(!assembled.error.contains(firstLine), qPrintable(assembled.error));
}

QTEST_MAIN(TestCandidateView)
#include "tst_candidateview.moc"
