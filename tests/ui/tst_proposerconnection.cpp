// Proposer Settings ▸ Test Connection against a chat server started here (cpp-httplib): the request it
// sends (one, short, with the key from wherever the settings take it), what the dialog says on success and
// on each kind of failure, and that closing the dialog aborts a test still waiting for its answer.
#include "fakechatserver.h"
#include "fakesecretstore.h"

#include "ui/common/format.h"
#include "ui/proposers/proposerconfig.h"
#include "ui/proposers/proposersettingsdialog.h"
#include "ui/proposers/sessionfallbacksecretstore.h"

#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QThreadPool>

#include <cstdlib>

using namespace kx;
using namespace kx::ui;

namespace {

const QString kSecret = QStringLiteral("sk-kx-connection-51d2e7a0");
const char kKeyVariable[] = "KX_TEST_CONNECTION_KEY";

template <typename T>
T *child(QObject *parent, const char *name)
{
    T *found = parent->findChild<T *>(QLatin1String(name));
    if (!found)
        qFatal("no child %s", name);
    return found;
}

ProposerConfig modelConfig(const test::FakeChatServer &server)
{
    ProposerConfig config;
    config.settings.kind = ProposerKind::Llm;
    config.settings.llm.endpoint = server.endpoint();
    config.settings.llm.model = "fake-model";
    config.settings.llm.apiKeyEnv = kKeyVariable;
    config.settings.llm.maxTokens = 4096;
    config.settings.llm.maxRetries = 4; // The test itself does not retry.
    config.settings.llm.retryBaseSeconds = 0.01;
    config.settings.llm.pricePromptPerMillion = 2;
    config.settings.llm.priceCompletionPerMillion = 8;
    config.settings.promptsDir = KX_PROMPTS_DIR;
    return config;
}

} // namespace

class TestProposerConnection : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanup();
    void sendsOneShortRequestWithTheKey_data();
    void sendsOneShortRequestWithTheKey();
    void failuresSayWhy_data();
    void failuresSayWhy();
    void closingAbortsTheTest();
};

void TestProposerConnection::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void TestProposerConnection::cleanup()
{
    ::unsetenv(kKeyVariable);
}

void TestProposerConnection::sendsOneShortRequestWithTheKey_data()
{
    QTest::addColumn<QString>("source");        // where the key is
    QTest::addColumn<QString>("authorization"); // what the server gets

    QTest::newRow("environment variable") << "environment"
                                          << "Bearer from-environment";
    QTest::newRow("typed, not saved yet") << "typed"
                                          << "Bearer " + kSecret;
    QTest::newRow("saved in the keychain") << "keychain"
                                           << "Bearer " + kSecret;
    QTest::newRow("kept for the session") << "session"
                                          << "Bearer " + kSecret;
    QTest::newRow("no key at all") << "none"
                                   << "";
}

void TestProposerConnection::sendsOneShortRequestWithTheKey()
{
    QFETCH(QString, source);
    QFETCH(QString, authorization);

    test::FakeChatServer server;
    server.script({test::answer("OK", 12, 1)});
    test::FakeSecretStore keychain(source != QLatin1String("session"));
    SessionFallbackSecretStore store(&keychain);
    ProposerConfig config = modelConfig(server);
    config.keySource = source == QLatin1String("environment") || source == QLatin1String("none")
                           ? ProposerConfig::KeySource::Environment
                           : ProposerConfig::KeySource::Keychain;
    if (source == QLatin1String("environment"))
        ::setenv(kKeyVariable, "from-environment", 1);
    if (source == QLatin1String("keychain"))
        keychain.setEntry(ProposerConfig::keychainEntry(), kSecret);
    if (source == QLatin1String("session")) {
        bool kept = false;
        store.write(ProposerConfig::keychainEntry(), kSecret, this,
                    [&kept](const SecretResult &result) { kept = result.ok() && result.sessionOnly; });
        QTRY_VERIFY(kept);
    }

    ProposerSettingsDialog dialog(config, &store);
    if (source == QLatin1String("typed"))
        child<QLineEdit>(&dialog, "proposerKey")->setText(kSecret);
    QSignalSpy tested(&dialog, &ProposerSettingsDialog::connectionTested);
    child<QPushButton>(&dialog, "proposerTestConnection")->click();
    QVERIFY(dialog.isTestingConnection());
    QTRY_COMPARE_WITH_TIMEOUT(tested.count(), 1, 10000);
    QVERIFY(!dialog.isTestingConnection());

    const QString message = tested.at(0).at(1).toString();
    QVERIFY2(tested.at(0).at(0).toBool(), qPrintable(message));
    QVERIFY2(message.startsWith(QStringLiteral("Connected: fake-model-1 answered")), qPrintable(message));
    const double cost = (12 * 2.0 + 1 * 8.0) / 1e6;
    QVERIFY2(message.contains(Format::modelUsage(12, 1, cost)), qPrintable(message));
    QCOMPARE(child<QLabel>(&dialog, "proposerConnectionStatus")->text(), message);
    QVERIFY(!child<QLabel>(&dialog, "proposerConnectionStatus")->isHidden());

    // One short, cheap request with the dialog's model and the key from where the settings say.
    QCOMPARE(server.requestCount(), 1);
    const nlohmann::json request = server.received().at(0);
    QCOMPARE(QString::fromStdString(request.value("model", std::string())), QStringLiteral("fake-model"));
    QVERIFY(request.value("max_tokens", 0) > 0);
    QVERIFY(request.value("max_tokens", 0) <= 16);
    QCOMPARE(QString::fromStdString(server.authorizations().at(0)), authorization);
    // Testing does not save a typed key, and the key never becomes part of the settings.
    if (source == QLatin1String("typed"))
        QVERIFY(keychain.entries().isEmpty());
    QVERIFY(dialog.config().settings.llm.apiKey.empty());
}

void TestProposerConnection::failuresSayWhy_data()
{
    QTest::addColumn<QString>("failure");
    QTest::addColumn<QString>("expected"); // part of the message
    QTest::addColumn<int>("requests");     // that reached the server

    QTest::newRow("key refused") << "401"
                                 << "answered HTTP 401" << 1;
    QTest::newRow("gateway error, not retried") << "502"
                                                << "answered HTTP 502" << 1;
    QTest::newRow("not a chat completion") << "garbage"
                                           << "not JSON" << 1;
    QTest::newRow("nothing listens") << "unreachable"
                                     << "cannot reach http://127.0.0.1:1/v1" << 0;
    QTest::newRow("no model") << "no model"
                              << "no model given" << 0;
    QTest::newRow("no key saved") << "no key"
                                  << "needs the API key: No API key is saved" << 0;
}

void TestProposerConnection::failuresSayWhy()
{
    QFETCH(QString, failure);
    QFETCH(QString, expected);
    QFETCH(int, requests);

    test::FakeChatServer server;
    if (failure == QLatin1String("401"))
        server.script({test::reply(401, R"({"error": {"message": "invalid api key"}})")});
    else if (failure == QLatin1String("502"))
        server.script({test::reply(502, "<html><body>Bad Gateway</body></html>", "text/html")});
    else
        server.script({test::reply(200, "<html>login page</html>", "text/html")});
    test::FakeSecretStore keychain;
    ProposerConfig config = modelConfig(server);
    if (failure == QLatin1String("unreachable"))
        config.settings.llm.endpoint = "http://127.0.0.1:1/v1";
    if (failure == QLatin1String("no model"))
        config.settings.llm.model.clear();
    if (failure == QLatin1String("no key"))
        config.keySource = ProposerConfig::KeySource::Keychain;

    ProposerSettingsDialog dialog(config, &keychain);
    QSignalSpy tested(&dialog, &ProposerSettingsDialog::connectionTested);
    dialog.testConnection();
    QTRY_COMPARE_WITH_TIMEOUT(tested.count(), 1, 20000);
    const QString message = tested.at(0).at(1).toString();
    QVERIFY2(!tested.at(0).at(0).toBool(), qPrintable(message));
    QVERIFY2(message.contains(expected), qPrintable(message));
    QCOMPARE(child<QLabel>(&dialog, "proposerConnectionStatus")->text(), message);
    QCOMPARE(server.requestCount(), requests);
    QVERIFY(child<QPushButton>(&dialog, "proposerTestConnection")->isEnabled()); // Ready for another try.
}

void TestProposerConnection::closingAbortsTheTest()
{
    test::FakeChatServer server;
    server.script({test::reply(200, test::completionBody("OK"), "application/json", 60)});
    ProposerConfig config = modelConfig(server);
    config.settings.llm.timeoutSeconds = 120;
    auto *dialog = new ProposerSettingsDialog(config, nullptr);
    QSignalSpy tested(dialog, &ProposerSettingsDialog::connectionTested);
    dialog->show();
    dialog->testConnection();
    QTRY_COMPARE_WITH_TIMEOUT(server.requestCount(), 1, 10000);
    QVERIFY(dialog->isTestingConnection());

    QElapsedTimer clock;
    clock.start();
    dialog->reject();
    QVERIFY(!dialog->isTestingConnection());
    QVERIFY(child<QPushButton>(dialog, "proposerTestConnection")->isEnabled());
    // The request in flight is aborted: the pool's thread comes back long before the server would answer.
    QVERIFY(QThreadPool::globalInstance()->waitForDone(10000));
    QVERIFY2(clock.elapsed() < 10000, qPrintable(QString::number(clock.elapsed())));
    QTest::qWait(50);
    QCOMPARE(tested.count(), 0); // Nothing is reported for a dialog that was closed.
    delete dialog;
}

QTEST_MAIN(TestProposerConnection)
#include "tst_proposerconnection.moc"
