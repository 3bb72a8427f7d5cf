// Two baselines in the GUI: the evaluations dock lists each baseline measurement (or says there is none), the
// standing words are core's, the run panel edits and stores the precision policy and the torch.compile
// comparison with the re-timing settings, and the run's notes appear in its log.
#include "archivefixture.h"

#include "ui/common/baselineformat.h"
#include "ui/common/format.h"
#include "ui/kernels/evaluationspanel.h"
#include "ui/search/baselinesettings.h"
#include "ui/search/runpanel.h"
#include "ui/search/searchbridge.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLocale>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace kx;
using namespace kx::ui;

namespace {

const std::string kH100 = "NVIDIA H100 80GB HBM3";

template <typename T>
T *child(QObject *parent, const char *name)
{
    T *found = parent->findChild<T *>(QLatin1String(name));
    if (!found)
        qFatal("no child %s", name);
    return found;
}

/// The first item (depth first) under item whose first column is text.
QTreeWidgetItem *find(QTreeWidgetItem *item, const QString &text)
{
    for (int i = 0; i < item->childCount(); ++i) {
        if (item->child(i)->text(0) == text)
            return item->child(i);
        if (QTreeWidgetItem *found = find(item->child(i), text))
            return found;
    }
    return nullptr;
}

/// Policies compare as their names: QTest cannot print an enum class of core's.
QString policy(Precision precision)
{
    return QString::fromLatin1(toString(precision));
}

CandidateDetails detailsWith(std::vector<Evaluation> evaluations)
{
    CandidateDetails details;
    details.candidate = test::makeCandidate("relu", "__global__ void k() {}", Origin::Mutated, "tile", "tiled", 1);
    details.evaluations = std::move(evaluations);
    return details;
}

} // namespace

class TestBaselines : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void standingWordsAreCores_data();
    void standingWordsAreCores();
    void panelListsBothBaselines();
    void panelSaysWhyThereIsNoInductorTime();
    void panelShowsNoInductorMeasurementForOlderEvaluations();
    void panelShowsTrialInputsAndTheErrorAgainstFloat64();
    void runSettingsRoundTrip();
    void runSettingsGoIntoTheSearch();
    void runNotesAppearInTheLog();

private:
    QTemporaryDir m_dir;
};

void TestBaselines::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QLocale::setDefault(QLocale::c());
    QVERIFY(m_dir.isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("KernelExplorerTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_baselineviews"));
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
}

void TestBaselines::init()
{
    QSettings().clear();
}

void TestBaselines::standingWordsAreCores_data()
{
    QTest::addColumn<double>("overEager");
    QTest::addColumn<double>("overInductor"); // 0: not measured.
    QTest::addColumn<bool>("marked");
    QTest::newRow("beats both") << 2.0 << 1.5 << false;
    QTest::newRow("beats eager, loses to Inductor") << 2.0 << 0.8 << true;
    QTest::newRow("loses to eager, beats Inductor") << 0.9 << 1.1 << false;
    QTest::newRow("loses to both") << 0.9 << 0.5 << false;
    QTest::newRow("beats eager, no Inductor time") << 2.0 << 0.0 << false;
    QTest::newRow("loses to eager, no Inductor time") << 0.5 << 0.0 << false;
}

void TestBaselines::standingWordsAreCores()
{
    QFETCH(double, overEager);
    QFETCH(double, overInductor);
    QFETCH(bool, marked);
    const std::optional<double> inductor = overInductor > 0 ? std::optional<double>(overInductor) : std::nullopt;
    QCOMPARE(BaselineFormat::standing(overEager, inductor), QString::fromStdString(standingText(overEager, inductor)));
    QCOMPARE(BaselineFormat::losesToInductorOnly(overEager, inductor), marked);
}

void TestBaselines::panelListsBothBaselines()
{
    const Evaluation evaluation =
        test::withBaselines(test::makeEvaluation("c", kH100, EvalStatus::Correct, 0.5, 1.0),
                            test::makeBaseline(BaselineKind::Eager, kH100, 1.0, Precision::Tf32),
                            test::makeBaseline(BaselineKind::Inductor, kH100, 0.4, Precision::Tf32, {}, 2.5));
    QVERIFY(evaluation.baselineSamplesMs.empty());
    EvaluationsPanel panel;
    panel.showDetails(detailsWith({evaluation}));
    QCOMPARE(panel.evaluationCount(), 1);
    QTreeWidgetItem *top = panel.tree()->topLevelItem(0);
    QCOMPARE(top->text(1), QStringLiteral("correct · 2.00× · 0.80× vs Inductor · 0.5000 ms"));

    QTreeWidgetItem *inductorSpeedup = find(top, QStringLiteral("× Inductor"));
    QVERIFY(inductorSpeedup);
    QCOMPARE(inductorSpeedup->text(1), QStringLiteral("0.80×"));
    QTreeWidgetItem *standing = find(top, QStringLiteral("Standing"));
    QVERIFY(standing);
    QCOMPARE(standing->text(1), QStringLiteral("beats eager, loses to Inductor"));
    QCOMPARE(standing->foreground(1).color(), BaselineFormat::losesToInductorColor());
    QTreeWidgetItem *precision = find(top, QStringLiteral("Precision"));
    QVERIFY(precision);
    QCOMPARE(precision->text(1), QStringLiteral("tf32"));
    QCOMPARE(precision->toolTip(1), BaselineFormat::precisionDescription(Precision::Tf32));

    // Each measurement: kind, method, median, runs, drift, max error.
    QTreeWidgetItem *baselines = find(top, QStringLiteral("Baselines"));
    QVERIFY(baselines);
    QCOMPARE(baselines->childCount(), 2);
    QCOMPARE(baselines->text(1), QStringLiteral("eager 1.000 ms · Inductor 0.4000 ms"));
    QCOMPARE(baselines->child(0)->text(0), QStringLiteral("eager"));
    const QString eager = baselines->child(0)->text(1).replace(QLatin1Char('\n'), QLatin1Char(' '));
    for (const char *part : {"libtorch-eager", "median 1.000 ms", "n = 5", "drift 0.0%", "max abs error 0.0003"})
        QVERIFY2(eager.contains(QLatin1String(part)), qPrintable(eager));
    QCOMPARE(baselines->child(1)->text(0), QStringLiteral("Inductor"));
    const QString inductor = baselines->child(1)->text(1).replace(QLatin1Char('\n'), QLatin1Char(' '));
    for (const char *part : {"aoti-package", "median 0.4000 ms", "n = 5", "drift +2.5%", "max rel error 0.001"})
        QVERIFY2(inductor.contains(QLatin1String(part)), qPrintable(inductor));
    QVERIFY(baselines->child(1)->toolTip(1).contains(QLatin1String("test fixture"))); // The details JSON.
    // Today's evaluations keep eager's samples with its measurement: no "Baseline" row of the old kind.
    QVERIFY(!find(top, QStringLiteral("Baseline")));
}

void TestBaselines::panelSaysWhyThereIsNoInductorTime()
{
    const char *why = "torch.export failed: data-dependent control flow";
    const Evaluation evaluation =
        test::withBaselines(test::makeEvaluation("c", kH100, EvalStatus::Correct, 0.5, 1.0),
                            test::makeBaseline(BaselineKind::Eager, kH100, 1.0),
                            test::makeBaseline(BaselineKind::Inductor, kH100, 0, Precision::Fp32, why));
    EvaluationsPanel panel;
    panel.showDetails(detailsWith({evaluation}));
    QTreeWidgetItem *top = panel.tree()->topLevelItem(0);
    QCOMPARE(find(top, QStringLiteral("× Inductor"))->text(1), QStringLiteral("no Inductor measurement"));
    QCOMPARE(find(top, QStringLiteral("Standing"))->text(1), QStringLiteral("beats eager (no Inductor time)"));
    QTreeWidgetItem *baselines = find(top, QStringLiteral("Baselines"));
    QVERIFY(baselines);
    QCOMPARE(baselines->child(1)->text(0), QStringLiteral("Inductor"));
    QVERIFY2(baselines->child(1)->text(1).contains(QStringLiteral("none: %1").arg(QLatin1String(why))),
             qPrintable(baselines->child(1)->text(1)));
    QCOMPARE(baselines->child(1)->foreground(1).color(), Format::warningColor());

    // Eager only (the comparison was switched off): still said.
    const Evaluation eagerOnly = test::withBaselines(test::makeEvaluation("c", kH100, EvalStatus::Correct, 0.5, 1.0),
                                                     test::makeBaseline(BaselineKind::Eager, kH100, 1.0), std::nullopt);
    panel.showDetails(detailsWith({eagerOnly}));
    baselines = find(panel.tree()->topLevelItem(0), QStringLiteral("Baselines"));
    QVERIFY(baselines);
    QCOMPARE(baselines->childCount(), 2);
    QCOMPARE(baselines->child(1)->text(1), QStringLiteral("no Inductor measurement"));
}

void TestBaselines::panelShowsNoInductorMeasurementForOlderEvaluations()
{
    // Archives from before the two baselines: eager timed with the kernel, its samples on the evaluation.
    const Evaluation old = test::makeEvaluation("c", kH100, EvalStatus::Correct, 0.5, 1.0);
    QVERIFY(old.baselines.empty());
    EvaluationsPanel panel;
    panel.showDetails(detailsWith({old}));
    QTreeWidgetItem *top = panel.tree()->topLevelItem(0);
    QVERIFY(top->text(1).startsWith(QStringLiteral("correct · 2.00× · 0.5000 ms")));
    QTreeWidgetItem *inductor = find(top, QStringLiteral("Inductor"));
    QVERIFY(inductor);
    QCOMPARE(inductor->text(1), QStringLiteral("no Inductor measurement"));
    QVERIFY(find(top, QStringLiteral("Baseline")));
    QCOMPARE(find(top, QStringLiteral("Precision"))->text(1), QStringLiteral("fp32"));
    QCOMPARE(find(top, QStringLiteral("Standing"))->text(1), QStringLiteral("beats eager (no Inductor time)"));
}

void TestBaselines::panelShowsTrialInputsAndTheErrorAgainstFloat64()
{
    Evaluation evaluation = test::makeEvaluation("c", kH100, EvalStatus::Correct, 0.5, 1.0);
    evaluation.correctness.trials = 3;
    evaluation.correctness.inputs = {"normal", "wide x1/256 (the reference was not finite at full scale)",
                                     "special-values (matches)"};
    evaluation.correctness.timingInputSets = 3;
    evaluation.correctness.precisionAudit = PrecisionAudit{{1000, 4e-5, 3e-5, 1e-5}, {1000, 1e-7, 6e-8, 2e-8}, {}, {}};
    EvaluationsPanel panel;
    panel.showDetails(detailsWith({evaluation}));
    QTreeWidgetItem *top = panel.tree()->topLevelItem(0);
    QTreeWidgetItem *inputs = find(top, QStringLiteral("Trial inputs"));
    QVERIFY(inputs);
    QCOMPARE(inputs->childCount(), 3);
    QVERIFY(inputs->child(1)->text(1).contains(QStringLiteral("x1/256")));
    QVERIFY(find(top, QStringLiteral("Timing inputs"))->text(1).startsWith(QStringLiteral("input sets: 3")));
    const QString error =
        find(top, QStringLiteral("Error vs float64"))->text(1).replace(QLatin1Char('\n'), QLatin1Char(' '));
    for (const char *part : {"p99 rel 3e-05 (fp32 reference 6e-08)", "max rel 4e-05", "samples: 1000"})
        QVERIFY2(error.contains(QLatin1String(part)), qPrintable(error));
    QVERIFY2(!error.contains(QLatin1String("TF32")), qPrintable(error)); // no eager with TF32 under fp32

    // Under tf32 the audit also holds eager's own error with TF32.
    evaluation.correctness.precisionAudit->policyReference = {1000, 9e-4, 2e-4, 1e-5};
    panel.showDetails(detailsWith({evaluation}));
    const QString withTf32 = find(panel.tree()->topLevelItem(0), QStringLiteral("Error vs float64"))->text(1);
    QVERIFY2(withTf32.contains(QLatin1String("eager with TF32: p99 rel 0.0002, max rel 0.0009")), qPrintable(withTf32));

    evaluation.correctness.precisionAudit = PrecisionAudit{{}, {}, {}, "this reference cannot run in float64"};
    panel.showDetails(detailsWith({evaluation}));
    QVERIFY(find(panel.tree()->topLevelItem(0), QStringLiteral("Error vs float64"))
                ->text(1)
                .contains(QStringLiteral("not measured: this reference cannot run in float64")));
}

void TestBaselines::runSettingsRoundTrip()
{
    SearchBridge bridge;
    {
        RunPanel panel(&bridge);
        // Defaults are core's.
        QCOMPARE(policy(panel.settings().eval.precision), policy(Precision::Fp32));
        QCOMPARE(panel.settings().eval.inductorBaseline, true);
        QCOMPARE(panel.settings().eval.baselineEveryEvaluations, EvalSettings{}.baselineEveryEvaluations);

        auto precision = child<QComboBox>(&panel, "searchPrecision");
        QCOMPARE(precision->count(), 3);
        QCOMPARE(precision->itemText(2), QStringLiteral("kernelbench"));
        QVERIFY(precision->itemData(1, Qt::ToolTipRole).toString().contains(QLatin1String("TF32")));
        QVERIFY(precision->toolTip().contains(QLatin1String("atol = rtol = 1e-2")));
        // Edited as a user would.
        precision->setCurrentIndex(precision->findText(QStringLiteral("tf32")));
        child<QCheckBox>(&panel, "searchInductor")->setChecked(false);
        child<QSpinBox>(&panel, "baselineEveryEvaluations")->setValue(50);
        child<QSpinBox>(&panel, "baselineEveryMinutes")->setValue(0);
        const EvalSettings eval = panel.settings().eval;
        QCOMPARE(policy(eval.precision), policy(Precision::Tf32));
        QCOMPARE(eval.inductorBaseline, false);
        QCOMPARE(eval.baselineEveryEvaluations, 50);
        QCOMPARE(eval.baselineEveryMinutes, 0.0);
    }
    // Stored with the run settings: the next panel (the next session) starts with them.
    QCOMPARE(QSettings().value(QStringLiteral("run/precision")).toString(), QStringLiteral("tf32"));
    RunPanel next(&bridge);
    QCOMPARE(child<QComboBox>(&next, "searchPrecision")->currentText(), QStringLiteral("tf32"));
    QVERIFY(!child<QCheckBox>(&next, "searchInductor")->isChecked());
    const EvalSettings eval = next.settings().eval;
    QCOMPARE(policy(eval.precision), policy(Precision::Tf32));
    QCOMPARE(eval.inductorBaseline, false);
    QCOMPARE(eval.baselineEveryEvaluations, 50);
    QCOMPARE(eval.baselineEveryMinutes, 0.0);

    // setSettings shows (and stores) what it is given.
    SearchSettings settings;
    settings.eval.precision = Precision::KernelBench;
    settings.eval.inductorBaseline = true;
    next.setSettings(settings);
    QCOMPARE(policy(next.settings().eval.precision), policy(Precision::KernelBench));
    QCOMPARE(next.settings().eval.inductorBaseline, true);
    QCOMPARE(policy(BaselineSettings::load(QSettings()).precision), policy(Precision::KernelBench));

    // A policy this version does not know falls back to the default.
    QSettings().setValue(QStringLiteral("run/precision"), QStringLiteral("fp8"));
    QCOMPARE(policy(BaselineSettings::load(QSettings()).precision), policy(Precision::Fp32));
}

void TestBaselines::runSettingsGoIntoTheSearch()
{
    // The settings a search starts with carry the policy; the rest of the evaluation settings stay core's.
    SearchBridge bridge;
    RunPanel panel(&bridge);
    auto precision = child<QComboBox>(&panel, "searchPrecision");
    QVERIFY(precision->isEnabled());
    precision->setCurrentIndex(precision->findText(QStringLiteral("kernelbench")));
    const SearchSettings settings = panel.settings();
    QCOMPARE(policy(settings.eval.precision), policy(Precision::KernelBench));
    EvalSettings expected;
    expected.precision = Precision::KernelBench;
    QVERIFY(settings.eval == expected);
}

void TestBaselines::runNotesAppearInTheLog()
{
    SearchBridge bridge;
    RunPanel panel(&bridge);
    QVERIFY(panel.logText().isEmpty());
    QCOMPARE(panel.logTitle(), QStringLiteral("Log"));
    const QString note = QStringLiteral("Inductor baseline: AOTInductor package for sm_90 (from the cache)");
    emit bridge.noteAdded(note);
    QVERIFY2(panel.logText().contains(note), qPrintable(panel.logText()));
    emit bridge.noteAdded(QStringLiteral("Inductor baseline unavailable: no PyTorch on this machine"));
    auto log = child<QPlainTextEdit>(&panel, "runLog");
    QCOMPARE(log->blockCount(), 2);
    QVERIFY(panel.logText().endsWith(QLatin1String("no PyTorch on this machine")));
    // The log shares its place with the workers: its tab counts what arrived unseen, until it is shown.
    auto tabs = child<QTabWidget>(&panel, "runTabs");
    QVERIFY(tabs->currentWidget() != log);
    QCOMPARE(panel.logTitle(), QStringLiteral("Log (2 new)"));
    tabs->setCurrentWidget(log);
    QCOMPARE(panel.logTitle(), QStringLiteral("Log"));
    emit bridge.noteAdded(QStringLiteral("Eager baseline re-timed: drift +0.4%"));
    QCOMPARE(panel.logTitle(), QStringLiteral("Log"));
    QCOMPARE(log->blockCount(), 3);
}

QTEST_MAIN(TestBaselines)
#include "tst_baselineviews.moc"
