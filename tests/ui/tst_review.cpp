// Review: the queue ordered by suspicion with its evidence (both baselines and the precision policy among it),
// verdicts recorded through the session, undo/redo of verdicts and the badges in the kernels table.
#include "archivefixture.h"
#include "screenshotsupport.h"

#include "ui/common/archivereader.h"
#include "ui/common/archivesession.h"
#include "ui/common/baselineformat.h"
#include "ui/common/format.h"
#include "ui/kernels/kernelsmodel.h"
#include "ui/kernels/kernelspage.h"
#include "ui/review/reviewevidence.h"
#include "ui/review/reviewpage.h"
#include "ui/review/reviewqueuemodel.h"
#include "ui/review/verdictcontroller.h"
#include "ui/review/verdictdialog.h"
#include "ui/window/mainwindow.h"

#include "core/archive/archivejson.h"
#include "core/plan/roofline.h"

#include <nlohmann/json.hpp>

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <fstream>

using namespace kx;
using namespace kx::ui;

namespace {

const char kImpossible[] = "fdd3e059"; // 90x on H100 with "impossible" and "suspicious" flags.

/// The sample archive plus two flagged kernels: one only "suspicious" (12x), one also "impossible" (50x).
struct ReviewArchive
{
    std::string impossible, suspicious, alsoImpossible;

    static ReviewArchive write(const QString &path)
    {
        ReviewArchive ids;
        auto archive = test::openWritable(path);
        std::ifstream in(KX_TEST_DATA_DIR "/sample-archive.json");
        const auto imported = importArchive(*archive, nlohmann::json::parse(in));
        if (!imported)
            throw std::runtime_error(imported.error().message);
        ids.impossible = *archive->resolveCandidateId(kImpossible);
        const Candidate suspicious = test::makeCandidate("relu", "__global__ void k() { /* S */ }", Origin::Mutated,
                                                         "unroll", "suspicious only", 6000);
        const Candidate alsoImpossible = test::makeCandidate("relu", "__global__ void k() { /* I */ }", Origin::Mutated,
                                                             "grid-size", "impossible too", 7000);
        Transaction tx = archive->begin();
        archive->addCandidate(tx, suspicious);
        archive->addCandidate(tx, alsoImpossible);
        archive->addEvaluation(tx, test::makeEvaluation(suspicious.id, "NVIDIA H100 80GB HBM3", EvalStatus::Correct,
                                                        0.1, 1.2, {Flag{"suspicious", R"({"speedup": 12})"}}));
        archive->addEvaluation(tx, test::makeEvaluation(alsoImpossible.id, "NVIDIA H100 80GB HBM3", EvalStatus::Correct,
                                                        0.02, 1.0,
                                                        {Flag{"impossible", R"({"floorMs": 0.1})"},
                                                         Flag{"suspicious", R"({"speedup": 50})"}}));
        tx.commit();
        ids.suspicious = suspicious.id;
        ids.alsoImpossible = alsoImpossible.id;
        return ids;
    }
};

QString q(const std::string &text)
{
    return QString::fromStdString(text);
}

std::unique_ptr<Archive> reader(const QString &path)
{
    auto archive = Archive::open(QFile::encodeName(path).toStdString(), ArchiveMode::ReadOnly);
    return archive ? std::move(*archive) : nullptr;
}

} // namespace

class TestReview : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void queueIsOrderedBySuspicion();
    void evidenceShowsFloorTimingAndChecks();
    void evidenceJudgesTheFloorAsTheFlagDoes();
    void evidenceShowsTrialInputsAndTheErrorAgainstFloat64();
    void queueAndEvidenceShowBothBaselines();
    void dialogOffersReasonCodes();
    void acceptIsPersistedAndUndone();
    void rejectAndRedoAddAgain();
    void refusesBadVerdicts();
    void badgesFollowVerdictsAndUndo();
    void docksFollowTheQueueOnTheReviewPage();
    void batchVerdictsOnASelection();

private:
    QTemporaryDir m_dir;
    QString m_path;
    ReviewArchive m_ids;
};

void TestReview::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QLocale::setDefault(QLocale::c());
    QVERIFY(m_dir.isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("KernelExplorerTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_review"));
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
}

void TestReview::init()
{
    // Every test starts from a fresh copy: verdicts change the archive.
    QSettings().clear();
    // A home folder per test, with the archive where a user would keep it (the screenshot shows its path).
    test::useAsHome(m_dir.filePath(QString::fromLatin1(QTest::currentTestFunction())));
    m_path = test::homeArchivePath(QStringLiteral("relu-review"));
    m_ids = ReviewArchive::write(m_path);
}

void TestReview::queueIsOrderedBySuspicion()
{
    ReviewPage page;
    QAbstractItemModelTester tester(page.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy loaded(&page, &ReviewPage::loaded);
    page.setArchive(archiveRef(m_path));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    QCOMPARE(loaded.first().first().toInt(), 3);
    ReviewQueueModel *model = page.model();
    QCOMPARE(model->rowCount(), 3);
    // Impossible + suspicious first (the faster of the two first), then suspicious only.
    QCOMPARE(model->data(model->index(0, ReviewQueueModel::IdColumn), ReviewQueueModel::CandidateIdRole).toString(),
             q(m_ids.impossible));
    QCOMPARE(model->data(model->index(1, ReviewQueueModel::IdColumn), ReviewQueueModel::CandidateIdRole).toString(),
             q(m_ids.alsoImpossible));
    QCOMPARE(model->data(model->index(2, ReviewQueueModel::IdColumn), ReviewQueueModel::CandidateIdRole).toString(),
             q(m_ids.suspicious));
    QCOMPARE(model->data(model->index(0, ReviewQueueModel::RankColumn)).toInt(), 1);
    QCOMPARE(model->data(model->index(0, ReviewQueueModel::FlagsColumn)).toInt(), 2);
    QCOMPARE(model->data(model->index(0, ReviewQueueModel::SpeedupColumn)).toString(), Format::speedup(90.0));
    // The first row is selected and its evidence shown.
    QCOMPARE(page.currentCandidateId(), q(m_ids.impossible));
}

void TestReview::evidenceShowsFloorTimingAndChecks()
{
    ReviewPage page;
    page.resize(1100, 600);
    QSignalSpy loaded(&page, &ReviewPage::loaded);
    page.setArchive(archiveRef(m_path));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    QTRY_VERIFY(!page.isLoading());
    const QString html = page.evidenceHtml();
    // 8*N bytes at N = 67108864 over 3010 GB/s: a floor of 0.1784 ms against the measured 0.0021 ms.
    QVERIFY2(html.contains(QLatin1String("Roofline floor")), qPrintable(html));
    QVERIFY(html.contains(QLatin1String("0.1784 ms")));
    QVERIFY(html.contains(QLatin1String("below it")));
    QVERIFY(html.contains(QLatin1String("wall clock")));
    QVERIFY(html.contains(QLatin1String("0.002142")));
    QVERIFY(html.contains(QLatin1String("inputs-unchanged")));
    QVERIFY(html.contains(QLatin1String("Flag: impossible")));
    QVERIFY(html.contains(QLatin1String("floorMs")));
    QVERIFY(html.contains(QLatin1String("Flag: suspicious")));

    // Another row: its own evidence.
    QVERIFY(page.selectCandidate(q(m_ids.suspicious)));
    QTRY_VERIFY(page.evidenceHtml().contains(QLatin1String("suspicious only")));
    QVERIFY(!page.evidenceHtml().contains(QLatin1String("Flag: impossible")));
}

void TestReview::evidenceJudgesTheFloorAsTheFlagDoes()
{
    // A 4096^3 GEMM: 2 * 4096^3 FLOPs at the H100's fp32 peak (66.9 TFLOP/s) take 2.05 ms.
    Op op;
    op.name = "gemm4096";
    op.flopsExpr = "2 * N * N * N";
    op.shapeSets = {{{"N", 4096}}};
    Evaluation evaluation;
    evaluation.status = EvalStatus::Correct;
    evaluation.gpu.name = "NVIDIA H100 80GB HBM3";
    evaluation.gpu.computeCapability = "9.0";
    evaluation.gpu.peakTflops = 66.9;
    evaluation.gpu.measuredBandwidthGBs = 3000;
    const auto evidenceAt = [&](double medianMs, Precision precision) {
        evaluation.timing.medianMs = medianMs;
        evaluation.precision = precision;
        return ReviewEvidence::html(op, {evaluation});
    };
    const double floorMs = rooflineFloor(op, evaluation.gpu, Precision::Fp32)->floorMs;
    QVERIFY(std::abs(floorMs - 2.054) < 0.01);
    // Under the floor but within the slack the flag allows: not called impossible.
    const QString withinSlack = evidenceAt(0.9 * floorMs, Precision::Fp32);
    QVERIFY2(withinSlack.contains(QLatin1String("within timing slack")), qPrintable(withinSlack));
    QVERIFY(!withinSlack.contains(QLatin1String("below it")));
    QVERIFY(!isBelowFloor(0.9 * floorMs, *rooflineFloor(op, evaluation.gpu, Precision::Fp32)));
    // Beyond the slack: below the floor, as the flag says.
    QVERIFY(evidenceAt(0.5 * floorMs, Precision::Fp32).contains(QLatin1String("below it")));
    QVERIFY(isBelowFloor(0.5 * floorMs, *rooflineFloor(op, evaluation.gpu, Precision::Fp32)));
    // A TF32 run at cuBLAS speed (0.3 ms) is above the tensor cores' floor.
    QVERIFY(evidenceAt(0.3, Precision::Tf32).contains(QLatin1String("above it")));
    QVERIFY(evidenceAt(0.3, Precision::Fp32).contains(QLatin1String("below it")));
}

void TestReview::evidenceShowsTrialInputsAndTheErrorAgainstFloat64()
{
    Evaluation evaluation;
    evaluation.status = EvalStatus::Correct;
    evaluation.gpu.name = "NVIDIA H100 80GB HBM3";
    evaluation.timing.medianMs = 0.2;
    evaluation.correctness.inputs = {"normal", "constant", "special-values (matches the reference)"};
    evaluation.correctness.precisionAudit = PrecisionAudit{{1000, 6e-5, 5e-5, 1e-5}, {1000, 1e-7, 6e-8, 2e-8}, {}, {}};
    const QString plain = ReviewEvidence::html(std::nullopt, {evaluation});
    QVERIFY2(plain.contains(QLatin1String("normal, constant, special-values (matches the reference)")),
             qPrintable(plain));
    QVERIFY2(plain.contains(QLatin1String("Error vs float64")), qPrintable(plain));
    QVERIFY2(!plain.contains(QLatin1String("Eager with TF32")), qPrintable(plain)); // none measured under fp32
    evaluation.correctness.precisionAudit->policyReference = {1000, 2e-4, 4e-5, 1e-5};
    const QString tf32 = ReviewEvidence::html(std::nullopt, {evaluation});
    QVERIFY2(tf32.contains(QLatin1String("Eager with TF32 vs float64")), qPrintable(tf32));
    QVERIFY2(tf32.contains(Format::number(4e-5, 3)), qPrintable(tf32));
    evaluation.correctness.precisionAudit->policyReference = {};
    QVERIFY(!plain.contains(Format::warningColor().name() + QLatin1String("\">") + Format::number(5e-5, 3)));
    // With the flag the error is marked, as the flag's own evidence below it is.
    evaluation.flags = {Flag{"reduced-precision", R"({"candidateP99RelError": 5e-05})"}};
    const QString flagged = ReviewEvidence::html(std::nullopt, {evaluation});
    QVERIFY2(flagged.contains(Format::warningColor().name() + QLatin1String("\">") + Format::number(5e-5, 3)),
             qPrintable(flagged));
    QVERIFY(flagged.contains(QLatin1String("Flag: reduced-precision")));
}

void TestReview::queueAndEvidenceShowBothBaselines()
{
    // 12x over eager looks suspicious, and torch.compile is faster still: the case the review must not miss.
    const std::string h100 = "NVIDIA H100 80GB HBM3";
    const Candidate candidate = test::makeCandidate("relu", "__global__ void k() { /* T */ }", Origin::Mutated, "tile",
                                                    "slower than torch.compile", 8000);
    {
        auto archive = test::openWritable(m_path);
        Evaluation evaluation =
            test::withBaselines(test::makeEvaluation(candidate.id, h100, EvalStatus::Correct, 0.1, 1.2,
                                                     {Flag{"suspicious", R"({"speedup": 12})"}}),
                                test::makeBaseline(BaselineKind::Eager, h100, 1.2, Precision::Tf32),
                                test::makeBaseline(BaselineKind::Inductor, h100, 0.08, Precision::Tf32, {}, 1.5));
        for (BaselineMeasurement &baseline : evaluation.baselines)
            baseline.opName = "relu";
        Transaction tx = archive->begin();
        archive->addCandidate(tx, candidate);
        archive->addEvaluation(tx, evaluation);
        tx.commit();
    }
    ReviewPage page;
    QAbstractItemModelTester tester(page.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy loaded(&page, &ReviewPage::loaded);
    page.setArchive(archiveRef(m_path));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    ReviewQueueModel *model = page.model();
    QCOMPARE(model->rowCount(), 4);
    const int row = model->rowOf(q(candidate.id));
    QVERIFY(row >= 0);
    QCOMPARE(model->headerData(ReviewQueueModel::InductorSpeedupColumn, Qt::Horizontal).toString(),
             QStringLiteral("× Inductor"));
    QCOMPARE(model->data(model->index(row, ReviewQueueModel::SpeedupColumn)).toString(), Format::speedup(12.0));
    QCOMPARE(model->data(model->index(row, ReviewQueueModel::InductorSpeedupColumn)).toString(), Format::speedup(0.8));
    QCOMPARE(model->data(model->index(row, ReviewQueueModel::PrecisionColumn)).toString(), QStringLiteral("tf32"));
    QCOMPARE(model->data(model->index(row, 0), ReviewQueueModel::StandingRole).toString(),
             QStringLiteral("beats eager, loses to Inductor"));
    QVERIFY(model->data(model->index(row, 0), ReviewQueueModel::LosesToInductorRole).toBool());
    QCOMPARE(
        model->data(model->index(row, ReviewQueueModel::InductorSpeedupColumn), Qt::ForegroundRole).value<QBrush>(),
        QBrush(BaselineFormat::losesToInductorColor()));
    // An older kernel: no Inductor speedup, fp32, not marked.
    const int old = model->rowOf(q(m_ids.suspicious));
    QCOMPARE(model->data(model->index(old, ReviewQueueModel::InductorSpeedupColumn)).toString(), QString());
    QCOMPARE(model->data(model->index(old, ReviewQueueModel::PrecisionColumn)).toString(), QStringLiteral("fp32"));
    QVERIFY(!model->data(model->index(old, 0), ReviewQueueModel::LosesToInductorRole).toBool());

    // The evidence: both baselines with their methods, the policy, and the standing as evidence of its own.
    QVERIFY(page.selectCandidate(q(candidate.id)));
    QTRY_VERIFY(page.evidenceHtml().contains(QLatin1String("slower than torch.compile")));
    const QString html = page.evidenceHtml();
    QVERIFY2(html.contains(QLatin1String("beats eager, loses to Inductor")), qPrintable(html));
    QVERIFY(html.contains(BaselineFormat::losesToInductorColor().name()));
    QVERIFY(html.contains(QLatin1String("Speedup over Inductor")));
    QVERIFY(html.contains(QStringLiteral("0.80×")));
    QVERIFY(html.contains(QLatin1String("Eager baseline")));
    QVERIFY(html.contains(QLatin1String("libtorch-eager")));
    QVERIFY(html.contains(QLatin1String("Inductor baseline")));
    QVERIFY(html.contains(QLatin1String("aoti-package")));
    QVERIFY(html.contains(QLatin1String("median 0.08000 ms")));
    QVERIFY(html.contains(QLatin1String("drift +1.5%")));
    QVERIFY(html.contains(QLatin1String("Precision policy")));
    QVERIFY(html.contains(BaselineFormat::precisionDescription(Precision::Tf32).toHtmlEscaped()));

    // An older evaluation says there is no Inductor measurement and that eager was timed with the kernel.
    QVERIFY(page.selectCandidate(q(m_ids.suspicious)));
    QTRY_VERIFY(page.evidenceHtml().contains(QLatin1String("suspicious only")));
    QVERIFY(page.evidenceHtml().contains(QLatin1String("no Inductor measurement")));
    QVERIFY(page.evidenceHtml().contains(QLatin1String("timed with the kernel")));
    QVERIFY(!page.evidenceHtml().contains(QLatin1String("loses to Inductor")));
}

void TestReview::dialogOffersReasonCodes()
{
    VerdictDialog dialog(q(m_ids.suspicious), false);
    auto reason = dialog.findChild<QComboBox *>(QStringLiteral("reasonCombo"));
    QVERIFY(reason);
    QCOMPARE(reason->count(), int(verdictReasonCodes().size()));
    for (int i = 0; i < reason->count(); ++i)
        QCOMPARE(reason->itemData(i).toString(), q(verdictReasonCodes()[std::size_t(i)]));
    QCOMPARE(dialog.verdict().accepted, false);
    QCOMPARE(dialog.verdict().reasonCode, std::string("incorrect"));
    // Switching to accept proposes the matching reason until one is picked by hand.
    dialog.findChild<QRadioButton *>(QStringLiteral("acceptButton"))->setChecked(true);
    QCOMPARE(dialog.verdict().reasonCode, std::string("verified-speedup"));
    dialog.setReasonCode(QStringLiteral("duplicate"));
    dialog.findChild<QRadioButton *>(QStringLiteral("rejectButton"))->setChecked(true);
    QCOMPARE(dialog.verdict().reasonCode, std::string("duplicate"));
    dialog.findChild<QPlainTextEdit *>(QStringLiteral("noteEdit"))->setPlainText(QStringLiteral("  same as 1a2b  "));
    const Verdict verdict = dialog.verdict();
    QCOMPARE(verdict.candidateId, m_ids.suspicious);
    QCOMPARE(verdict.accepted, false);
    QCOMPARE(verdict.note, std::string("same as 1a2b"));
    test::saveScreenshot(&dialog, QStringLiteral("verdict-dialog.png"));

    // A flagged kernel's rejection is offered the reason its flags suggest, not "incorrect results".
    const auto flaggedWith = [](const char *kind) { return std::set<std::string>{kind}; };
    QCOMPARE(VerdictDialog::rejectReasonFor(flaggedWith("impossible")), QStringLiteral("suspicious-timing"));
    QCOMPARE(VerdictDialog::rejectReasonFor(flaggedWith("suspicious")), QStringLiteral("suspicious-timing"));
    QCOMPARE(VerdictDialog::rejectReasonFor(flaggedWith("input-insensitive")), QStringLiteral("exploits-harness"));
    QCOMPARE(VerdictDialog::rejectReasonFor(flaggedWith("reduced-precision")), QStringLiteral("reduced-precision"));
    QCOMPARE(VerdictDialog::rejectReasonFor(flaggedWith("no-floor")), QStringLiteral("incorrect"));
    QCOMPARE(VerdictDialog::rejectReasonFor({}), QStringLiteral("incorrect"));
    VerdictDialog flagged(q(m_ids.impossible), false);
    flagged.setRejectReason(QStringLiteral("suspicious-timing"));
    QCOMPARE(flagged.verdict().reasonCode, std::string("suspicious-timing"));
    flagged.setAccepted(true);
    QCOMPARE(flagged.verdict().reasonCode, std::string("verified-speedup"));
    flagged.setAccepted(false);
    QCOMPARE(flagged.verdict().reasonCode, std::string("suspicious-timing"));
}

void TestReview::acceptIsPersistedAndUndone()
{
    ArchiveSession session;
    QVERIFY(session.open(m_path));
    QWidget parent;
    VerdictController controller(&session, &parent);
    QSignalSpy changed(&session, &ArchiveSession::verdictsChanged);
    Verdict verdict = test::makeVerdict(m_ids.suspicious, true, "verified-speedup", "re-measured");
    verdict.createdAtMs = 0;
    QVERIFY(controller.record(verdict));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.first().first().toString(), q(m_ids.suspicious));
    QVERIFY(controller.undoStack()->canUndo());

    // Persisted: a separate connection sees it.
    auto archive = reader(m_path);
    QVERIFY(archive);
    std::optional<Verdict> current = archive->currentVerdict(m_ids.suspicious);
    QVERIFY(current);
    QVERIFY(current->accepted);
    QCOMPARE(current->reasonCode, std::string("verified-speedup"));
    QCOMPARE(current->note, std::string("re-measured"));
    // Reviewed kernels leave the queue.
    const auto queue = archive->reviewQueue();
    QVERIFY(
        std::none_of(queue.begin(), queue.end(), [&](const CandidateSummary &s) { return s.id == m_ids.suspicious; }));

    controller.undoStack()->undo();
    QCOMPARE(changed.count(), 2);
    QVERIFY(!archive->currentVerdict(m_ids.suspicious));
    const std::vector<Verdict> history = archive->verdicts(m_ids.suspicious);
    QCOMPARE(int(history.size()), 1);
    QVERIFY(history.front().retracted);
}

void TestReview::rejectAndRedoAddAgain()
{
    ArchiveSession session;
    QVERIFY(session.open(m_path));
    QWidget parent;
    VerdictController controller(&session, &parent);
    // An earlier verdict stays in force underneath a newer one and comes back when that is undone.
    QVERIFY(controller.record(test::makeVerdict(m_ids.impossible, true, "verified-speedup")));
    QVERIFY(controller.record(test::makeVerdict(m_ids.impossible, false, "suspicious-timing", "below the floor")));
    auto archive = reader(m_path);
    QCOMPARE(archive->currentVerdict(m_ids.impossible)->accepted, false);
    QCOMPARE(controller.undoStack()->undoText(), QStringLiteral("Reject %1").arg(Format::shortId(m_ids.impossible)));

    controller.undoStack()->undo();
    QCOMPARE(archive->currentVerdict(m_ids.impossible)->accepted, true);
    controller.undoStack()->redo();
    std::optional<Verdict> current = archive->currentVerdict(m_ids.impossible);
    QVERIFY(current);
    QCOMPARE(current->accepted, false);
    QCOMPARE(current->note, std::string("below the floor"));
    // Redo added a new row; the undone one stays as retracted history.
    const std::vector<Verdict> history = archive->verdicts(m_ids.impossible);
    QCOMPARE(int(history.size()), 3);
    QCOMPARE(std::count_if(history.begin(), history.end(), [](const Verdict &v) { return v.retracted; }), 1);

    controller.undoStack()->undo();
    controller.undoStack()->undo();
    QVERIFY(!archive->currentVerdict(m_ids.impossible));
    QVERIFY(!controller.undoStack()->canUndo());

    // Opening another archive clears the history: its verdict ids mean nothing there.
    QVERIFY(controller.undoStack()->canRedo());
    session.close();
    QVERIFY(!controller.undoStack()->canRedo());
}

void TestReview::refusesBadVerdicts()
{
    ArchiveSession session;
    QWidget parent;
    VerdictController controller(&session, &parent);
    QSignalSpy errors(&controller, &VerdictController::errorOccurred);
    // No archive.
    QVERIFY(!controller.record(test::makeVerdict(m_ids.suspicious, true, "verified-speedup")));
    QCOMPARE(errors.count(), 1);
    QVERIFY(!controller.undoStack()->canUndo());

    QVERIFY(session.open(m_path));
    QVERIFY(!controller.record(test::makeVerdict(m_ids.suspicious, true, "looked-fine")));
    QVERIFY(errors.last().first().toString().contains(QLatin1String("looked-fine")));
    QVERIFY(!controller.record(test::makeVerdict(std::string(64, 'f'), true, "verified-speedup")));
    QVERIFY(errors.last().first().toString().contains(QLatin1String("not in the archive")));
    QVERIFY(!controller.undoStack()->canUndo());

    // Read-only archives take no verdicts.
    QVERIFY(session.open(m_path, ArchiveSession::Access::ReadOnly));
    QVERIFY(!controller.record(test::makeVerdict(m_ids.suspicious, true, "verified-speedup")));
    QVERIFY(errors.last().first().toString().contains(QLatin1String("read-only")));
    QCOMPARE(errors.count(), 4);
    QVERIFY(!reader(m_path)->currentVerdict(m_ids.suspicious));
}

// Select a kernel on the Kernels page, then open Review: the Source and Evaluations docks show the queue's
// kernel, the one Accept and Reject judge, not the one selected before.
void TestReview::docksFollowTheQueueOnTheReviewPage()
{
    MainWindow window;
    window.resize(1400, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy shown(&window, &MainWindow::candidateShown);
    QVERIFY(window.openArchive(m_path));
    KernelsPage *kernels = window.kernelsPage();
    QTRY_COMPARE(kernels->model()->rowCount(), 7);
    QTRY_COMPARE(window.reviewPage()->model()->rowCount(), 3);
    QVERIFY(kernels->selectCandidate(q(m_ids.suspicious)));
    QTRY_VERIFY(!shown.isEmpty() && shown.last().first().toString() == q(m_ids.suspicious));
    QCOMPARE(window.reviewPage()->currentCandidateId(), q(m_ids.impossible));

    auto pages = window.findChild<QTabWidget *>(QStringLiteral("pages"));
    pages->setCurrentWidget(window.reviewPage());
    QTRY_COMPARE(shown.last().first().toString(), q(m_ids.impossible));
    QCOMPARE(window.reviewCandidateId(), q(m_ids.impossible));

    // Back on Kernels the docks follow that page's selection again when it changes.
    pages->setCurrentWidget(kernels);
    QVERIFY(kernels->selectCandidate(q(m_ids.alsoImpossible)));
    QTRY_COMPARE(shown.last().first().toString(), q(m_ids.alsoImpossible));
}

// Several flagged kernels at once: select them in the queue, Reject once; one Undo takes every verdict back.
void TestReview::batchVerdictsOnASelection()
{
    const QString path = m_dir.filePath(QStringLiteral("batch.kxdb"));
    const auto ids = ReviewArchive::write(path);
    ReviewPage page;
    QSignalSpy loaded(&page, &ReviewPage::loaded);
    page.setArchive(archiveRef(path));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    QCOMPARE(page.model()->rowCount(), 3);
    QTableView *view = page.view();
    view->selectionModel()->select(page.model()->index(0, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    view->selectionModel()->select(page.model()->index(1, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QCOMPARE(page.selectedCandidateIds(), (QStringList{q(ids.impossible), q(ids.alsoImpossible)}));
    QSignalSpy batch(&page, &ReviewPage::batchReviewRequested);
    QSignalSpy single(&page, &ReviewPage::reviewRequested);
    page.findChild<QPushButton *>(QStringLiteral("reviewReject"))->click();
    QCOMPARE(single.count(), 0);
    QCOMPARE(batch.count(), 1);
    QCOMPARE(batch.first().at(0).toStringList(), (QStringList{q(ids.impossible), q(ids.alsoImpossible)}));
    QCOMPARE(batch.first().at(1).toBool(), false);

    ArchiveSession session;
    QVERIFY(session.open(path));
    QWidget parent;
    VerdictController controller(&session, &parent);
    std::vector<Verdict> verdicts;
    for (const auto &id : {ids.impossible, ids.alsoImpossible})
        verdicts.push_back(test::makeVerdict(id, false, "suspicious-timing", "both below the roofline"));
    QVERIFY(controller.recordAll(verdicts));
    QCOMPARE(controller.undoStack()->count(), 1); // one step for the batch
    auto archive = reader(path);
    // The flags the offered reason comes from: read without the evaluations' samples.
    QCOMPARE(archive->flagKinds(ids.impossible), (std::set<std::string>{"impossible", "suspicious"}));
    QCOMPARE(archive->flagKinds(ids.suspicious), std::set<std::string>{"suspicious"});
    QCOMPARE(VerdictDialog::rejectReasonFor(archive->flagKinds(ids.impossible)), QStringLiteral("suspicious-timing"));
    QVERIFY(archive->currentVerdict(ids.impossible) && !archive->currentVerdict(ids.impossible)->accepted);
    QVERIFY(archive->currentVerdict(ids.alsoImpossible) && !archive->currentVerdict(ids.alsoImpossible)->accepted);
    QVERIFY(!archive->currentVerdict(ids.suspicious));
    controller.undoStack()->undo();
    QVERIFY(!archive->currentVerdict(ids.impossible));
    QVERIFY(!archive->currentVerdict(ids.alsoImpossible));
    controller.undoStack()->redo();
    QVERIFY(archive->currentVerdict(ids.impossible));
    QVERIFY(archive->currentVerdict(ids.alsoImpossible));
}

void TestReview::badgesFollowVerdictsAndUndo()
{
    MainWindow window;
    QStringList reported;
    window.setErrorHandler([&reported](const QString &, const QString &message) { reported << message; });
    window.resize(1400, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openArchive(m_path));
    KernelsPage *kernels = window.kernelsPage();
    QTRY_COMPARE(kernels->model()->rowCount(), 7);
    QAbstractItemModelTester tester(kernels->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTRY_COMPARE(window.reviewPage()->model()->rowCount(), 3);

    auto badge = [&] {
        const int row = kernels->model()->rowOf(q(m_ids.impossible));
        return kernels->model()->data(kernels->model()->index(row, KernelsModel::VerdictColumn)).toString();
    };
    QCOMPARE(badge(), Format::verdict(std::nullopt));

    // From the review page: its current kernel is the one A/R act on.
    auto pages = window.findChild<QTabWidget *>(QStringLiteral("pages"));
    pages->setCurrentWidget(window.reviewPage());
    QTRY_COMPARE(window.reviewCandidateId(), q(m_ids.impossible));
    QVERIFY(window.verdicts()->record(test::makeVerdict(m_ids.impossible, false, "suspicious-timing")));
    QTRY_COMPARE(badge(), Format::verdict(false));
    QTRY_COMPARE(window.reviewPage()->model()->rowCount(), 2);
    test::saveScreenshot(&window, QStringLiteral("review.png"));

    // Edit > Undo takes the badge away and puts the kernel back in the queue; Edit > Redo brings it back.
    QMenu *edit = nullptr;
    for (QAction *action : window.menuBar()->actions())
        if (action->text() == QLatin1String("&Edit"))
            edit = action->menu();
    QVERIFY(edit);
    QAction *undo = nullptr;
    QAction *redo = nullptr;
    for (QAction *action : edit->actions()) {
        if (action->objectName() == QLatin1String("undoAction"))
            undo = action;
        if (action->objectName() == QLatin1String("redoAction"))
            redo = action;
    }
    QVERIFY(undo && redo);
    QCOMPARE(undo->shortcut(), QKeySequence(QKeySequence::Undo));
    QCOMPARE(redo->shortcut(), QKeySequence(QKeySequence::Redo));
    QVERIFY(undo->isEnabled());
    QVERIFY(!redo->isEnabled());
    QCOMPARE(undo->text(), QStringLiteral("&Undo Reject %1").arg(Format::shortId(m_ids.impossible)));
    undo->trigger();
    QTRY_COMPARE(badge(), Format::verdict(std::nullopt));
    QTRY_COMPARE(window.reviewPage()->model()->rowCount(), 3);
    QVERIFY(!undo->isEnabled());
    QVERIFY(redo->isEnabled());
    redo->trigger();
    QTRY_COMPARE(badge(), Format::verdict(false));
    QTRY_COMPARE(window.reviewPage()->model()->rowCount(), 2);
    QVERIFY(reported.isEmpty());

    // The A and R shortcuts are on the window's actions.
    auto accept = window.findChild<QAction *>(QStringLiteral("acceptAction"));
    auto reject = window.findChild<QAction *>(QStringLiteral("rejectAction"));
    QVERIFY(accept && reject);
    QCOMPARE(accept->shortcut(), QKeySequence(Qt::Key_A));
    QCOMPARE(reject->shortcut(), QKeySequence(Qt::Key_R));
}

QTEST_MAIN(TestReview)
#include "tst_review.moc"
