// The Review page's Profile action: `kx profile` as a child process (with a fake ncu, so no GPU is needed), its
// output shown, the stored metrics shown with the evidence, cancelling, a missing ncu, read-only archives.
#include "ui/common/archivereader.h"
#include "ui/review/profileevidence.h"
#include "ui/review/profilerunner.h"
#include "ui/review/reviewpage.h"

#include "core/archive/archive.h"
#include "core/archive/archivejson.h"

#include <nlohmann/json.hpp>

#include <QLocale>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace kx;
using namespace kx::ui;

namespace {

const char kFakeNcu[] = KX_TEST_DATA_DIR "/ncu/fake-ncu.sh";
const char kImpossible[] = "fdd3e059"; // a flagged relu kernel of the sample archive, first in the review queue

} // namespace

class TestProfileAction : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void profileShowsTheMetricsBesideTheModel();
    void readOnlyArchivesCannotBeProfiled();
    void missingNcuIsReported();
    void cancelStoresNothing();
    void evidenceOfFailedAndAbsentProfiles();

private:
    void openPage(ReviewPage &page, bool readOnly = false);
    std::vector<Profile> storedProfiles() const;

    QTemporaryDir m_dir;
    QString m_path;
    std::string m_id;
};

void TestProfileAction::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QLocale::setDefault(QLocale::c());
    QVERIFY(m_dir.isValid());
}

void TestProfileAction::init()
{
    m_path = m_dir.filePath(QString::fromLatin1(QTest::currentTestFunction()) + QStringLiteral(".kxdb"));
    auto archive = Archive::open(m_path.toStdString());
    QVERIFY(archive);
    std::ifstream in(KX_TEST_DATA_DIR "/sample-archive.json");
    QVERIFY(importArchive(**archive, nlohmann::json::parse(in)));
    m_id = *(*archive)->resolveCandidateId(kImpossible);
    qputenv("KX_NCU", kFakeNcu);
    qunsetenv("FAKE_NCU_MODE");
}

void TestProfileAction::cleanup()
{
    qunsetenv("KX_NCU");
    qunsetenv("FAKE_NCU_MODE");
}

void TestProfileAction::openPage(ReviewPage &page, bool readOnly)
{
    page.profileRunner()->setProgram(QStringLiteral(KX_BINARY_DIR "/kx"));
    QSignalSpy loaded(&page, &ReviewPage::loaded);
    page.setArchive(archiveRef(m_path, readOnly ? ArchiveMode::ReadOnly : ArchiveMode::ReadWrite));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    QTRY_VERIFY(!page.isLoading());
    QCOMPARE(page.currentCandidateId(), QString::fromStdString(m_id));
}

std::vector<Profile> TestProfileAction::storedProfiles() const
{
    auto archive = Archive::open(m_path.toStdString(), ArchiveMode::ReadOnly);
    return archive ? (*archive)->profiles(m_id) : std::vector<Profile>{};
}

void TestProfileAction::profileShowsTheMetricsBesideTheModel()
{
    ReviewPage page;
    openPage(page);
    QVERIFY(page.evidenceHtml().contains(QLatin1String("Not profiled")));
    QVERIFY(page.profileButton()->isEnabled());
    QVERIFY(!page.cancelProfileButton()->isVisible());

    QSignalSpy finished(&page, &ReviewPage::profileFinished);
    page.gpuChooser()->setValue(1);
    QTest::mouseClick(page.profileButton(), Qt::LeftButton);
    QVERIFY(!page.profileButton()->isEnabled()); // one profile at a time
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
    QVERIFY(page.profileButton()->isEnabled());
    // kx's own output, as it came.
    QVERIFY2(page.profileOutput().contains(QLatin1String("profile of the candidate on NVIDIA H100 80GB HBM3")),
             qPrintable(page.profileOutput()));
    QVERIFY(page.profileOutput().contains(QLatin1String("on GPU 1")));

    // The stored metrics beside the model's numbers, reloaded into the evidence.
    QTRY_VERIFY_WITH_TIMEOUT(page.evidenceHtml().contains(QLatin1String("Nsight Compute"))
                                 && !page.evidenceHtml().contains(QLatin1String("Not profiled")),
                             10000);
    const QString html = page.evidenceHtml();
    QVERIFY2(html.contains(QLatin1String("536.9 MB (what the op must move)")), qPrintable(html));
    QVERIFY(html.contains(QLatin1String("25.49 MB")));
    QVERIFY(html.contains(QLatin1String("3000 GB/s (the card's copy bandwidth)")));
    QVERIFY(html.contains(QLatin1String("Finding: moved-too-few-bytes")));
    QVERIFY(html.contains(QLatin1String("long_scoreboard")));
    QVERIFY(html.contains(QLatin1String("reduce_max&lt;128, 4&gt;")));
    QVERIFY(html.contains(QLatin1String("not printed by this ncu")));
    QCOMPARE(storedProfiles().size(), std::size_t(2));
}

void TestProfileAction::readOnlyArchivesCannotBeProfiled()
{
    ReviewPage page;
    openPage(page, true);
    QVERIFY(!page.profileButton()->isEnabled());
    QVERIFY(page.profileButton()->toolTip().contains(QLatin1String("read-only")));
    // Opened for writing again, the action comes back.
    openPage(page, false);
    QVERIFY(page.profileButton()->isEnabled());
}

void TestProfileAction::missingNcuIsReported()
{
    qputenv("KX_NCU", QFile::encodeName(m_dir.filePath(QStringLiteral("no-such-ncu"))));
    ReviewPage page;
    openPage(page);
    QSignalSpy finished(&page, &ReviewPage::profileFinished);
    QTest::mouseClick(page.profileButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QVERIFY(!finished.first().at(0).toBool());
    const QString message = finished.first().at(1).toString();
    QVERIFY2(message.startsWith(QLatin1String("Nsight Compute (ncu) not found")), qPrintable(message));
    QVERIFY(page.profileOutput().contains(message));
    QVERIFY(storedProfiles().empty());
}

void TestProfileAction::cancelStoresNothing()
{
    qputenv("FAKE_NCU_MODE", "slow");
    ReviewPage page;
    page.show();
    openPage(page);
    QSignalSpy finished(&page, &ReviewPage::profileFinished);
    QTest::mouseClick(page.profileButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(page.profileOutput().contains(QLatin1String("profiling the candidate")), 30000);
    QVERIFY(page.cancelProfileButton()->isVisible());
    QElapsedTimer timer;
    timer.start();
    QTest::mouseClick(page.cancelProfileButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
    QVERIFY(timer.elapsed() < 20000); // not the fake's minute
    QVERIFY(!finished.first().at(0).toBool());
    QVERIFY(finished.first().at(1).toString().contains(QLatin1String("cancelled")));
    QVERIFY(!page.cancelProfileButton()->isVisible());
    QVERIFY(page.profileButton()->isEnabled());
    QVERIFY(storedProfiles().empty());
}

void TestProfileAction::evidenceOfFailedAndAbsentProfiles()
{
    QVERIFY(ProfileEvidence::html({}).contains(QLatin1String("Not profiled")));
    Profile failed;
    failed.target = ProfileTarget::Candidate;
    failed.error = "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission";
    Profile eager;
    eager.target = ProfileTarget::Eager;
    eager.gpu.name = "NVIDIA H100 80GB HBM3";
    eager.metrics.kernels = 3;
    eager.metrics.dramReadBytes = 2e6;
    const QString html = ProfileEvidence::html({failed, eager});
    QVERIFY(html.contains(QLatin1String("Kernel: profiling failed")));
    QVERIFY(html.contains(QLatin1String("ERR_NVGPUCTRPERM")));
    QVERIFY(html.contains(QLatin1String("failed")));
    QVERIFY(html.contains(QLatin1String("2.000 MB")));
}

QTEST_MAIN(TestProfileAction)
#include "tst_profileaction.moc"
