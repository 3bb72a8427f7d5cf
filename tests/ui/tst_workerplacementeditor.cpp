// Where a search's workers run, chosen in the run panel: this computer, SSH hosts or Slurm jobs. The editor
// builds the same placement as `kx search --ssh/--slurm`, refuses bad host lists with a message, keeps its
// choice between sessions, and the run panel hands it to the search bridge (the worker field then names the
// command on the hosts).
#include "ui/search/runpanel.h"
#include "ui/search/searchbridge.h"
#include "ui/search/workerplacementeditor.h"

#include <QComboBox>
#include <QLineEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace kx;
using namespace kx::ui;

using Words = std::vector<std::string>;

class TestWorkerPlacement : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init() { QSettings().clear(); }
    void sshHostsBecomeOneWorkerPerDevice();
    void badHostListsAreRefusedWithAMessage();
    void slurmJobsCarryTheirRequest();
    void theChoiceIsKeptBetweenSessions();
    void theRunPanelHandsThePlacementToTheBridge();

private:
    QTemporaryDir m_dir;
};

void TestWorkerPlacement::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("KernelExplorerTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_workerplacementeditor"));
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
}

void TestWorkerPlacement::sshHostsBecomeOneWorkerPerDevice()
{
    WorkerPlacementEditor editor;
    editor.setKind(WorkerPlacement::Kind::Ssh);
    editor.setSshHosts(QStringLiteral("gpu-a:0,1  me@gpu-b:3"));
    const auto placement = editor.placement({});
    QVERIFY2(placement, placement ? "" : placement.error().message.c_str());
    QCOMPARE(placement->workerCount(), 3);
    const Words third = placement->commandFor(2);
    QCOMPARE(third.front(), std::string("ssh"));
    QVERIFY(std::find(third.begin(), third.end(), "me@gpu-b") != third.end());
    QCOMPARE(third.back(), std::string("'kx' 'worker' '--device' '3'")); // empty field: kx worker on the host
    const auto custom = editor.placement({QStringLiteral("/opt/kx/bin/kx"), QStringLiteral("worker")});
    QVERIFY(custom);
    QCOMPARE(custom->commandFor(0).back(), std::string("'/opt/kx/bin/kx' 'worker' '--device' '0'"));
}

void TestWorkerPlacement::badHostListsAreRefusedWithAMessage()
{
    WorkerPlacementEditor editor;
    editor.setKind(WorkerPlacement::Kind::Ssh);
    editor.setSshHosts(QStringLiteral("gpu-a:0,x"));
    const auto bad = editor.placement({});
    QVERIFY(!bad);
    QCOMPARE(QString::fromStdString(bad.error().message),
             QStringLiteral("SSH hosts: 'gpu-a:0,x': the devices after ':' are CUDA ordinals separated by commas, "
                            "e.g. 0,1"));
    editor.setSshHosts(QStringLiteral("   "));
    QVERIFY(!editor.placement({}));
}

void TestWorkerPlacement::slurmJobsCarryTheirRequest()
{
    WorkerPlacementEditor editor;
    editor.setKind(WorkerPlacement::Kind::Slurm);
    editor.setSlurm(6, QStringLiteral("gpu"), QString(), QStringLiteral("1:00:00"));
    const auto placement = editor.placement({});
    QVERIFY(placement);
    QCOMPARE(placement->workerCount(), 6);
    QCOMPARE(placement->commandFor(5),
             (Words{"srun", "--ntasks=1", "--unbuffered", "--quiet", "--job-name=kx-worker", "--gres=gpu:1",
                    "--partition=gpu", "--time=1:00:00", "kx", "worker", "--device", "0"}));
}

void TestWorkerPlacement::theChoiceIsKeptBetweenSessions()
{
    {
        WorkerPlacementEditor editor;
        auto *hosts = editor.findChild<QLineEdit *>(QStringLiteral("sshHosts"));
        QVERIFY(hosts);
        hosts->setText(QStringLiteral("gpu-a:1"));
        emit hosts->editingFinished();
        editor.findChild<QComboBox *>(QStringLiteral("workersOn"))->setCurrentIndex(1); // SSH hosts, saved
    }
    WorkerPlacementEditor next;
    QCOMPARE(int(next.kind()), int(WorkerPlacement::Kind::Ssh));
    const auto placement = next.placement({});
    QVERIFY(placement);
    QCOMPARE(placement->describe(0), std::string("gpu-a, device 1"));
}

void TestWorkerPlacement::theRunPanelHandsThePlacementToTheBridge()
{
    SearchBridge bridge;
    RunPanel panel(&bridge);
    QVERIFY(!bridge.placement());
    auto *editor = panel.findChild<WorkerPlacementEditor *>(QStringLiteral("workerPlacement"));
    QVERIFY(editor);
    editor->setSlurm(2, QString(), QString(), QString());
    panel.findChild<QComboBox *>(QStringLiteral("workersOn"))->setCurrentIndex(2); // Slurm jobs
    QVERIFY(bridge.placement());
    QCOMPARE(bridge.placement()->workerCount(), 2);
    auto *gpus = panel.findChild<QLineEdit *>(QStringLiteral("searchGpus"));
    QVERIFY(gpus);
    QVERIFY(!gpus->isVisibleTo(&panel)); // the jobs decide: their fields take its place
    QCOMPARE(panel.findChild<QLineEdit *>(QStringLiteral("searchWorker"))->placeholderText(),
             QStringLiteral("kx worker on the hosts"));
    panel.findChild<QComboBox *>(QStringLiteral("workersOn"))->setCurrentIndex(0); // this computer again
    QVERIFY(!bridge.placement());
    QVERIFY(gpus->isVisibleTo(&panel));
}

QTEST_MAIN(TestWorkerPlacement)
#include "tst_workerplacementeditor.moc"
