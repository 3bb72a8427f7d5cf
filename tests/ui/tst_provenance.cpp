// The Provenance tab of the candidate view, filled by the background loader from an archive: model, tokens,
// cost, prompt and raw response for candidates from a model or a command; hidden for the others. And the
// run panel's line with a stored run's model tokens and cost.
#include "archivefixture.h"
#include "qtestprinters.h"

#include "ui/common/codeview.h"
#include "ui/common/format.h"
#include "ui/kernels/candidateloader.h"
#include "ui/kernels/candidateview.h"
#include "ui/kernels/kernelsourceview.h"
#include "ui/kernels/provenanceview.h"
#include "ui/search/runcostlabel.h"

#include "core/util/hash.h"

#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace kx;
using namespace kx::ui;
using namespace kx::test;

namespace {

const char kPrompt[] = "### system\nYou write CUDA kernels.\n### user\nMake relu faster.";
const char kResponse[] = "Vectorised loads.\n\n```cuda\n__global__ void k() {}\n```\n";

} // namespace

class TestProvenance : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void modelCandidateShowsItsProvenance();
    void commandCandidateShowsItsProvenance();
    void templateCandidatesHaveNoTab();
    void fallbackNoteGoesToTheSummary();
    void runCost_data();
    void runCost();

private:
    /// Loads the candidate the way the main window does and shows it.
    void show(CandidateView &view, const std::string &id);

    QTemporaryDir m_dir;
    QString m_path;
    std::string m_llm, m_command, m_template, m_fallback;
    std::int64_t m_mixedRun = 0;    ///< All four candidates.
    std::int64_t m_templateRun = 0; ///< A template candidate only.
};

void TestProvenance::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    m_path = m_dir.filePath(QStringLiteral("provenance.kxdb"));

    Candidate llm = makeCandidate("relu", "__global__ void k() { /* llm */ }", Origin::Mutated, "llm-mutate",
                                  "llm mutate (gpt-x)", 1000);
    llm.provenance = CandidateProvenance{"llm", "gpt-x", kPrompt, sha256Hex(kPrompt),     kResponse,
                                         1234,  567,     0.0071,  "answered on attempt 2"};
    Candidate command = makeCandidate("relu", "__global__ void k() { /* command */ }", Origin::Mutated,
                                      "command-mutate", "command mutate (./ask.sh)", 2000);
    command.provenance = CandidateProvenance{"command",
                                             "./ask.sh --fast",
                                             "the prompt on stdin",
                                             sha256Hex("the prompt on stdin"),
                                             "the command's answer",
                                             0,
                                             0,
                                             0,
                                             ""};
    Candidate plain = makeCandidate("relu", "__global__ void k() { /* template */ }", Origin::Mutated, "block-size",
                                    "block size 128", 3000);
    Candidate fallback = makeCandidate("relu", "__global__ void k() { /* fallback */ }", Origin::Mutated, "block-size",
                                       "block size 512", 4000);
    fallback.provenance = CandidateProvenance{
        "template", "", "", "", "", 0, 0, 0, "fallback: llm failed: cannot reach http://127.0.0.1:9/v1"};
    Candidate otherPlain = makeCandidate("relu", "__global__ void k() { /* template 2 */ }", Origin::Mutated,
                                         "block-size", "block size 256", 5000);
    auto archive = openWritable(m_path);
    Transaction tx = archive->begin();
    archive->putOp(tx, makeOp("relu"));
    Run run;
    run.opName = "relu";
    m_mixedRun = archive->createRun(tx, run);
    m_templateRun = archive->createRun(tx, run);
    for (Candidate *candidate : {&llm, &command, &plain, &fallback}) {
        candidate->runId = m_mixedRun;
        archive->addCandidate(tx, *candidate);
    }
    otherPlain.runId = m_templateRun;
    archive->addCandidate(tx, otherPlain);
    tx.commit();
    m_llm = llm.id;
    m_command = command.id;
    m_template = plain.id;
    m_fallback = fallback.id;
    QVERIFY(archive->provenance(m_llm)); // The fixture is what the test thinks it is.
}

void TestProvenance::show(CandidateView &view, const std::string &id)
{
    CandidateLoader loader;
    QThread *gui = QThread::currentThread();
    bool onGuiThread = false;
    connect(&loader, &CandidateLoader::loaded, &view, [&](const CandidateDetails &details) {
        onGuiThread = QThread::currentThread() == gui;
        view.showDetails(details);
    });
    QSignalSpy loaded(&loader, &CandidateLoader::loaded);
    QSignalSpy failed(&loader, &CandidateLoader::failed);
    loader.load(m_path, QString::fromStdString(id));
    // A quick read can be delivered before load() returns: count, do not wait for the next emission.
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count() + failed.count(), 1, 10000);
    QCOMPARE(failed.count(), 0);
    QVERIFY(onGuiThread);
}

void TestProvenance::modelCandidateShowsItsProvenance()
{
    CandidateView view;
    QVERIFY(!view.isProvenanceTabVisible()); // Nothing shown yet.
    show(view, m_llm);
    QCOMPARE(view.candidateId(), QString::fromStdString(m_llm));
    QVERIFY(view.isProvenanceTabVisible());
    QCOMPARE(view.tabs()->tabText(view.tabs()->indexOf(view.provenanceView())), QStringLiteral("Provenance"));

    ProvenanceView *provenance = view.provenanceView();
    const QString summary = provenance->summary()->text();
    QVERIFY2(summary.contains(QStringLiteral("language model gpt-x")), qPrintable(summary));
    QVERIFY2(summary.contains(Format::modelUsage(1234, 567, 0.0071)), qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("est. cost")), qPrintable(summary));
    QVERIFY2(summary.contains(QString::fromStdString(sha256Hex(kPrompt))), qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("answered on attempt 2")), qPrintable(summary));
    QCOMPARE(provenance->promptView()->text(), QString::fromUtf8(kPrompt));
    QCOMPARE(provenance->responseView()->text(), QString::fromUtf8(kResponse));
    QVERIFY(provenance->promptView()->isReadOnly());
    QVERIFY(provenance->responseView()->isReadOnly());
}

void TestProvenance::commandCandidateShowsItsProvenance()
{
    CandidateView view;
    show(view, m_command);
    QVERIFY(view.isProvenanceTabVisible());
    const QString summary = view.provenanceView()->summary()->text();
    QVERIFY2(summary.contains(QStringLiteral("command ./ask.sh --fast")), qPrintable(summary));
    QVERIFY2(!summary.contains(QStringLiteral("tokens")), qPrintable(summary)); // A command reports none.
    QCOMPARE(view.provenanceView()->promptView()->text(), QStringLiteral("the prompt on stdin"));
    QCOMPARE(view.provenanceView()->responseView()->text(), QStringLiteral("the command's answer"));
}

void TestProvenance::templateCandidatesHaveNoTab()
{
    CandidateView view;
    show(view, m_llm);
    view.tabs()->setCurrentWidget(view.provenanceView());
    QVERIFY(view.isProvenanceTabVisible());

    // The next selection hides the tab and leaves nothing of the last one behind.
    show(view, m_template);
    QCOMPARE(view.candidateId(), QString::fromStdString(m_template));
    QVERIFY(!view.isProvenanceTabVisible());
    QVERIFY(view.tabs()->currentWidget() == view.sourceView()); // Back to the kernel, not to a neighbour tab.
    QVERIFY(view.provenanceView()->promptView()->text().isEmpty());

    show(view, m_llm);
    QVERIFY(view.isProvenanceTabVisible());
    view.clear();
    QVERIFY(!view.isProvenanceTabVisible());
}

void TestProvenance::fallbackNoteGoesToTheSummary()
{
    CandidateView view;
    show(view, m_fallback);
    QVERIFY(!view.isProvenanceTabVisible());
    const QString summary = view.findChild<QLabel *>(QStringLiteral("candidateSummary"))->text();
    QVERIFY2(summary.contains(QStringLiteral("fallback: llm failed")), qPrintable(summary));
}

void TestProvenance::runCost_data()
{
    QTest::addColumn<QString>("run");
    QTest::addColumn<QString>("expected");

    // The fallback candidate is the template proposer's: it does not count.
    QTest::newRow("model and command") << "mixed"
                                       << "Run %1: 2 candidate(s) from models or commands · "
                                              + Format::modelUsage(1234, 567, 0.0071);
    QTest::newRow("templates only") << "template"
                                    << "Run %1: no candidates from models or commands.";
    QTest::newRow("no run") << "none"
                            << "";
    QTest::newRow("unreadable archive") << "missing"
                                        << "Run %1: its model costs cannot be read";
}

void TestProvenance::runCost()
{
    QFETCH(QString, run);
    QFETCH(QString, expected);

    const std::int64_t runId = run == QLatin1String("mixed")      ? m_mixedRun
                               : run == QLatin1String("template") ? m_templateRun
                               : run == QLatin1String("missing")  ? m_mixedRun
                                                                  : 0;
    const QString path = run == QLatin1String("missing") ? m_dir.filePath(QStringLiteral("no-such.kxdb")) : m_path;
    RunCostLabel label;
    label.setText(QStringLiteral("stale"));
    QSignalSpy loaded(&label, &RunCostLabel::loaded);
    label.showRun(path, runId);
    if (runId == 0) {
        QVERIFY(label.text().isEmpty());
        return;
    }
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    QVERIFY2(label.text().startsWith(expected.arg(runId)), qPrintable(label.text()));
    if (run == QLatin1String("mixed"))
        QCOMPARE(label.text(), expected.arg(runId));
}

QTEST_MAIN(TestProvenance)
#include "tst_provenance.moc"
