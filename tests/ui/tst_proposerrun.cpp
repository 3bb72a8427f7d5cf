// Searches started from the run panel use the proposer of the settings: a command proposer (a small script
// answers with a fixed kernel) and a language model on a chat server started here, whose API key comes from
// the (fake) keychain at run start, or from memory where there is no keychain. The panel shows the run's
// tokens and cost while it runs and, from the archive, once it is selected. The fake worker stands in for
// the GPU.
#include "fakechatserver.h"
#include "fakesecretstore.h"
#include "qtestprinters.h"

#include "ui/common/archivereader.h"
#include "ui/common/format.h"
#include "ui/proposers/sessionfallbacksecretstore.h"
#include "ui/search/runpanel.h"
#include "ui/search/searchbridge.h"

#include "core/archive/archive.h"
#include "core/ops/builtinops.h"
#include "core/plan/nvrtccompiler.h"

#include <QDir>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace kx;
using namespace kx::ui;

namespace {

constexpr int kSearchTimeoutMs = 180000;
const QString kSecret = QStringLiteral("sk-kx-run-8e2b51c0aa");

SearchSettings smallSearch(int generations, int children)
{
    SearchSettings settings;
    settings.seed = 11;
    settings.childrenPerGeneration = children;
    settings.budget.generations = generations;
    return settings;
}

/// A ReLU answer whose block size varies with n, so that every answer is a new kernel.
std::string reluAnswer(int n)
{
    const std::string block = std::to_string(32 * (1 + n % 32));
    return "Block size " + block
           + ".\n\n```cuda\n"
             "extern \"C\" __global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ out, int "
             "n)\n{\n"
             "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) out[i] = fmaxf(x[i], "
             "0.0f);\n}\n```\n\n"
             "```json\n{\"steps\": [{\"kernel\": \"relu_kernel\", \"grid\": [\"ceil_div(N, "
           + block + ")\"], \"block\": [\"" + block
           + "\"], \"args\": [{\"input\": \"x\"}, {\"output\": \"out\"}, "
             "{\"int\": \"N\"}]}]}\n```\n";
}

QString shellQuoted(const QString &path)
{
    return QLatin1Char('\'') + path + QLatin1Char('\'');
}

} // namespace

class TestProposerRun : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void commandProposerMakesTheCandidates();
    void modelGetsTheKeychainKeyAndCostsAreShown_data();
    void modelGetsTheKeychainKeyAndCostsAreShown();
    void unusableProposerDoesNotStart();

private:
    void requireNvrtc();
    /// Starts a search of relu from the panel and waits for it to finish; the run id, or 0 when it did not.
    std::int64_t runFromPanel(RunPanel &panel, SearchBridge &bridge);

    QTemporaryDir m_dir;
};

void TestProposerRun::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("KernelExplorerTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_proposerrun"));
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
    QSettings().clear();
    qRegisterMetaType<kx::RunState>();
}

void TestProposerRun::requireNvrtc()
{
    if (!NvrtcCompiler::available())
        QSKIP("this build has no NVRTC; searches need it");
}

std::int64_t TestProposerRun::runFromPanel(RunPanel &panel, SearchBridge &bridge)
{
    bridge.setWorkerCommand({QStringLiteral(KX_FAKE_WORKER)});
    panel.setOp(*findBuiltInOp("relu"));
    panel.setSettings(smallSearch(1, 2));
    QSignalSpy started(&bridge, &SearchBridge::started);
    QSignalSpy failed(&bridge, &SearchBridge::startFailed);
    QSignalSpy finished(&bridge, &SearchBridge::finished);
    if (!panel.startSearch())
        return 0;
    if (!finished.wait(kSearchTimeoutMs) || started.isEmpty() || !failed.isEmpty()) {
        qWarning("the search did not run: %s", qPrintable(panel.messageText()));
        return 0;
    }
    if (finished.at(0).at(0).value<RunState>() != RunState::Finished) {
        qWarning("the search ended with: %s", qPrintable(finished.at(0).at(1).toString()));
        return 0;
    }
    return started.at(0).at(0).value<qint64>();
}

void TestProposerRun::commandProposerMakesTheCandidates()
{
    requireNvrtc();
    const QString archivePath = m_dir.filePath(QStringLiteral("command.kxdb"));
    const QString promptCopy = m_dir.filePath(QStringLiteral("prompt-seen-by-command.txt"));
    const QString script = QStringLiteral(KX_TEST_DATA_DIR "/propose/prompt-echo-command.sh");
    SearchBridge bridge;
    bridge.setArchive(archiveRef(archivePath, ArchiveMode::ReadWrite));
    RunPanel panel(&bridge);
    ProposerConfig config;
    config.settings.kind = ProposerKind::Command;
    config.settings.command.command = (shellQuoted(script) + QLatin1Char(' ') + shellQuoted(promptCopy)).toStdString();
    config.settings.promptsDir = KX_PROMPTS_DIR;
    panel.setProposerConfig(config);
    QCOMPARE(panel.proposerSummaryText(),
             QStringLiteral("Proposer: command %1").arg(QString::fromStdString(config.settings.command.command)));

    const std::int64_t runId = runFromPanel(panel, bridge);
    QVERIFY(runId > 0);

    auto archive = Archive::open(QFile::encodeName(archivePath).toStdString(), ArchiveMode::ReadOnly);
    QVERIFY(archive);
    const auto candidates = (*archive)->candidatesOfRun(runId);
    QVERIFY(!candidates.empty());
    // The translation came from the script (good-answer.md), not from the templates.
    const Candidate &first = candidates.front();
    QVERIFY2(first.source.find("__ldg(x + i)") != std::string::npos, first.source.c_str());
    const auto provenance = (*archive)->provenance(first.id);
    QVERIFY(provenance);
    QCOMPARE(QString::fromStdString(provenance->proposer), QStringLiteral("command"));
    QCOMPARE(provenance->model, config.settings.command.command);
    QVERIFY(provenance->prompt.find("relu") != std::string::npos);
    // The command read the prompt on stdin.
    QFile seen(promptCopy);
    QVERIFY(seen.open(QIODevice::ReadOnly));
    QVERIFY(seen.readAll().contains("### system"));
    QVERIFY(!bridge.modelCost()); // No model was asked: no tokens on the counts line.
    QVERIFY2(!panel.countsText().contains(QStringLiteral("model:")), qPrintable(panel.countsText()));
    // The stored run counts the command's candidates; a command reports no tokens.
    panel.setSelectedRun(runId, RunState::Finished);
    const auto runCost = (*archive)->runCost(runId);
    QVERIFY(runCost.candidates > 0);
    QTRY_COMPARE(panel.runCostText(),
                 QStringLiteral("Run %1: %2 candidate(s) from models or commands").arg(runId).arg(runCost.candidates));
}

void TestProposerRun::modelGetsTheKeychainKeyAndCostsAreShown_data()
{
    QTest::addColumn<bool>("keychain"); // false: no keychain service, the key was kept for the session
    QTest::newRow("keychain") << true;
    QTest::newRow("session only") << false;
}

void TestProposerRun::modelGetsTheKeychainKeyAndCostsAreShown()
{
    QFETCH(bool, keychain);
    requireNvrtc();
    test::FakeChatServer server;
    server.setHandler([](const nlohmann::json &, int index) { return test::answer(reluAnswer(index), 1000, 250); });
    const QString name = keychain ? QStringLiteral("model") : QStringLiteral("model-session");
    const QString archivePath = m_dir.filePath(name + QStringLiteral(".kxdb"));
    SearchBridge bridge;
    bridge.setArchive(archiveRef(archivePath, ArchiveMode::ReadWrite));
    test::FakeSecretStore keychainStore(keychain);
    SessionFallbackSecretStore store(&keychainStore);
    {
        bool saved = false;
        store.write(ProposerConfig::keychainEntry(), kSecret, this,
                    [&](const SecretResult &result) { saved = result.ok() && result.sessionOnly == !keychain; });
        QTRY_VERIFY(saved);
    }
    QCOMPARE(keychainStore.entries().contains(ProposerConfig::keychainEntry()), keychain);
    RunPanel panel(&bridge);
    panel.setSecretStore(&store);
    ProposerConfig config;
    config.settings.kind = ProposerKind::Llm;
    config.settings.llm.endpoint = server.endpoint();
    config.settings.llm.model = "fake-model";
    config.settings.llm.apiKeyEnv = "KX_TEST_VARIABLE_THAT_IS_NOT_SET";
    config.settings.llm.maxRetries = 0;
    config.settings.llm.pricePromptPerMillion = 2;
    config.settings.llm.priceCompletionPerMillion = 8;
    config.settings.promptsDir = KX_PROMPTS_DIR;
    config.keySource = ProposerConfig::KeySource::Keychain;
    panel.setProposerConfig(config);

    // The counts line shows tokens while the run goes on.
    QStringList countsWhileRunning;
    connect(&bridge, &SearchBridge::progressChanged, this, [&] {
        if (bridge.state() == SearchBridge::State::Running)
            countsWhileRunning << panel.countsText();
    });
    const std::int64_t runId = runFromPanel(panel, bridge);
    QVERIFY(runId > 0);
    // Saving took one request; starting read the key once more (from memory when there is no keychain).
    QCOMPARE(keychainStore.requests(), keychain ? 2 : 1);

    QVERIFY(server.requestCount() > 0);
    for (const std::string &authorization : server.authorizations())
        QCOMPARE(QString::fromStdString(authorization), QStringLiteral("Bearer ") + kSecret);

    const auto cost = bridge.modelCost();
    QVERIFY(cost);
    QCOMPARE(cost->calls, std::int64_t(server.requestCount()));
    QCOMPARE(cost->promptTokens, 1000 * cost->calls);
    const QString expected = Format::modelUsage(cost->promptTokens, cost->completionTokens, cost->cost);
    QVERIFY2(panel.countsText().contains(QStringLiteral("model: ") + expected), qPrintable(panel.countsText()));
    QVERIFY2(expected.contains(QStringLiteral("est. cost")), qPrintable(expected));
    const bool shownWhileRunning = std::any_of(countsWhileRunning.begin(), countsWhileRunning.end(),
                                               [](const QString &text) { return text.contains(u"model: "); });
    QVERIFY2(shownWhileRunning, qPrintable(countsWhileRunning.join(QLatin1Char('\n'))));

    // The candidates carry the model's provenance; the key is in neither the archive nor the settings.
    auto archive = Archive::open(QFile::encodeName(archivePath).toStdString(), ArchiveMode::ReadOnly);
    QVERIFY(archive);
    const auto runCost = (*archive)->runCost(runId);
    QVERIFY(runCost.candidates > 0);
    QVERIFY(runCost.promptTokens > 0);
    const auto run = (*archive)->run(runId);
    QVERIFY(run);
    QVERIFY(run->settings.find(kSecret.toStdString()) == std::string::npos);
    archive->reset();

    // Selected afterwards, the run shows what the archive holds for it.
    panel.setSelectedRun(runId, RunState::Finished);
    const QString stored = Format::modelUsage(runCost.promptTokens, runCost.completionTokens, runCost.cost);
    QTRY_VERIFY2(panel.runCostText().contains(stored), qPrintable(panel.runCostText()));
    QVERIFY2(panel.runCostText().startsWith(QStringLiteral("Run %1: %2 candidate").arg(runId).arg(runCost.candidates)),
             qPrintable(panel.runCostText()));

    const QString files = name + QStringLiteral(".kxdb*");
    for (const QString &file : QDir(m_dir.path()).entryList({files}, QDir::Files)) {
        QFile stored(m_dir.filePath(file));
        QVERIFY(stored.open(QIODevice::ReadOnly));
        QVERIFY2(!stored.readAll().contains(kSecret.toUtf8()), qPrintable(file));
    }
    QSettings settings;
    settings.sync();
    QFile settingsFile(settings.fileName());
    QVERIFY(settingsFile.open(QIODevice::ReadOnly));
    const QByteArray settingsBytes = settingsFile.readAll();
    QVERIFY(settingsBytes.contains("fake-model"));
    QVERIFY(!settingsBytes.contains(kSecret.toUtf8()));
}

void TestProposerRun::unusableProposerDoesNotStart()
{
    requireNvrtc();
    SearchBridge bridge;
    bridge.setArchive(archiveRef(m_dir.filePath(QStringLiteral("unusable.kxdb")), ArchiveMode::ReadWrite));
    bridge.setWorkerCommand({QStringLiteral(KX_FAKE_WORKER)});
    RunPanel panel(&bridge);
    ProposerConfig config;
    config.settings.kind = ProposerKind::Command;
    config.settings.promptsDir = m_dir.filePath(QStringLiteral("no-such-prompts")).toStdString();
    config.settings.command.command = "true";
    panel.setProposerConfig(config);
    panel.setOp(*findBuiltInOp("relu"));
    QSignalSpy failed(&bridge, &SearchBridge::startFailed);
    QSignalSpy started(&bridge, &SearchBridge::started);
    QVERIFY(panel.startSearch());
    // Not the template proposer in its place: the search does not begin, and the message says why.
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30000);
    QCOMPARE(started.count(), 0);
    QVERIFY2(panel.messageText().contains(QStringLiteral("does not exist")), qPrintable(panel.messageText()));
    QCOMPARE(bridge.state(), SearchBridge::State::Idle);
}

QTEST_MAIN(TestProposerRun)
#include "tst_proposerrun.moc"
