// Pages follow the archive session by themselves: an attached page is handed each archive with its access mode and
// hears of verdicts and stored candidates, and the kernels table and the lineage act on what they hear.
#include "archivefixture.h"
#include "ui/common/archivepage.h"
#include "ui/common/archivereader.h"
#include "ui/common/archivesession.h"
#include "ui/kernels/kernelspage.h"
#include "ui/lineage/lineagepage.h"

#include "core/domain/verdict.h"

#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace kx;
using namespace kx::ui;

namespace {

/// Records what the session tells a page.
class RecordingPage : public ArchivePage
{
public:
    QList<ArchiveRef> archives;
    QStringList verdicts;
    QStringList added;
    int reloads = 0;

    void setArchive(const ArchiveRef &archive) override { archives.append(archive); }
    void reload() override { ++reloads; }

protected:
    void onVerdictsChanged(const QString &candidateId) override { verdicts.append(candidateId); }
    void onCandidateAdded(const Candidate &candidate, int) override
    {
        added.append(QString::fromStdString(candidate.id));
    }
};

Candidate handMade(const std::string &parentId, std::optional<std::int64_t> runId)
{
    Candidate candidate = test::makeCandidate("relu", "// edited by hand\n__global__ void k() {}\n", Origin::Manual,
                                              "manual", "edited by hand", 9000, {parentId});
    candidate.id = makeCandidateId(candidate.source, candidate.launchPlan);
    candidate.runId = runId;
    return candidate;
}

} // namespace

class TestArchivePage : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void followsTheSession();
    void kernelsAndLineageFollowVerdictsAndNewCandidates();

private:
    QTemporaryDir m_dir;
};

void TestArchivePage::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
}

void TestArchivePage::followsTheSession()
{
    const QString path = m_dir.filePath(QStringLiteral("follow.kxdb"));
    const test::SampleArchive sample = test::SampleArchive::write(path);
    ArchiveSession session;
    RecordingPage page;
    page.attach(&session);
    QCOMPARE(page.archives.size(), 1);
    QVERIFY(page.archives.last().empty()); // attached before anything is open

    QVERIFY(session.open(path));
    QCOMPARE(page.archives.size(), 2);
    QVERIFY(page.archives.last() == archiveRef(path, ArchiveMode::ReadWrite));

    QVERIFY(session.addVerdict(test::makeVerdict(sample.a, true, verdictReasonCodes().front())));
    QCOMPARE(page.verdicts, QStringList{QString::fromStdString(sample.a)});

    const Candidate candidate = handMade(sample.a, std::nullopt);
    const Expected<bool> added = session.addCandidate(candidate);
    QVERIFY(added && *added);
    QCOMPARE(page.added, QStringList{QString::fromStdString(candidate.id)});
    // The same kernel again is not stored again, and no page hears of it.
    const Expected<bool> again = session.addCandidate(candidate);
    QVERIFY(again && !*again);
    QCOMPARE(page.added.size(), 1);

    QVERIFY(session.open(path, ArchiveSession::Access::ReadOnly));
    QVERIFY(page.archives.last() == archiveRef(path, ArchiveMode::ReadOnly));
    QVERIFY(page.archives.last().isReadOnly());
    session.close();
    QVERIFY(page.archives.last().empty());
    QCOMPARE(page.reloads, 0); // only the window asks for a reload (F5, a finished search)
}

void TestArchivePage::kernelsAndLineageFollowVerdictsAndNewCandidates()
{
    const QString path = m_dir.filePath(QStringLiteral("pages.kxdb"));
    const test::SampleArchive sample = test::SampleArchive::write(path);
    std::int64_t runId = 0;
    {
        auto archive = test::openWritable(path);
        QVERIFY(archive);
        Transaction tx = archive->begin();
        Run run;
        run.opName = "relu";
        runId = archive->createRun(tx, run);
        Candidate member = *archive->candidate(sample.a);
        member.runId = runId;
        archive->addCandidate(tx, member);
        tx.commit();
    }

    ArchiveSession session;
    KernelsPage kernels;
    LineagePage lineage;
    QSignalSpy kernelsLoaded(&kernels, &KernelsPage::loaded);
    QSignalSpy lineageLoaded(&lineage, &LineagePage::loaded);
    QSignalSpy badgesRead(&lineage, &LineagePage::verdictsRefreshed);
    kernels.attach(&session);
    lineage.attach(&session);
    QVERIFY(session.open(path));
    QTRY_COMPARE(kernelsLoaded.size(), 1);
    QCOMPARE(kernelsLoaded.last().at(0).toInt(), 5);
    lineage.showRun(runId);
    QTRY_COMPARE(lineageLoaded.size(), 1);
    QCOMPARE(lineage.graph().size(), 1);

    // A kernel made by hand in the run: a row in the table, a node in the lineage.
    const Candidate child = handMade(sample.a, runId);
    const Expected<bool> added = session.addCandidate(child, 1);
    QVERIFY(added && *added);
    QCOMPARE(lineage.graph().size(), 2);
    QVERIFY(lineage.graph().indexOf(QString::fromStdString(child.id)) >= 0);
    QTRY_COMPARE(kernelsLoaded.size(), 2);
    QCOMPARE(kernelsLoaded.last().at(0).toInt(), 6);

    // A verdict: the table reads its badges again, and so does the lineage.
    QVERIFY(session.addVerdict(test::makeVerdict(child.id, true, verdictReasonCodes().front())));
    QTRY_COMPARE(kernelsLoaded.size(), 3);
    QTRY_COMPARE(badgesRead.size(), 1);

    // Another archive (none): both pages let go of the old one.
    session.close();
    QVERIFY(kernels.archive().empty());
    QCOMPARE(lineage.runId(), 0);
    QCOMPARE(lineage.graph().size(), 0);
}

QTEST_MAIN(TestArchivePage)
#include "tst_archivepage.moc"
