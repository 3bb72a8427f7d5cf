// Proposer settings in the GUI: the dialog's round trip through QSettings, the API key kept out of it,
// validation messages from core, the keychain behind a replaceable store (and the key kept for the session
// where there is none), copying the prompt templates, and the run panel's summary of the proposer a run
// will use.
#include "fakesecretstore.h"

#include "ui/common/archivereader.h"
#include "ui/proposers/proposerconfig.h"
#include "ui/proposers/proposersettingsdialog.h"
#include "ui/proposers/sessionfallbacksecretstore.h"
#include "ui/search/runpanel.h"
#include "ui/search/searchbridge.h"

#include "core/ops/builtinops.h"
#include "core/propose/promptbuilder.h"

#include <QAction>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <functional>
#include <optional>

using namespace kx;
using namespace kx::ui;

namespace {

const QString kSecret = QStringLiteral("sk-kx-test-4d1f9b7e0c");

template <typename T>
T *child(QObject *parent, const char *name)
{
    T *found = parent->findChild<T *>(QLatin1String(name));
    if (!found)
        qFatal("no child %s", name);
    return found;
}

ProposerConfig fullConfig()
{
    ProposerConfig config;
    ProposerSettings &s = config.settings;
    s.kind = ProposerKind::Mix;
    s.llm.endpoint = "https://api.example.com/v1";
    s.llm.model = "gpt-x";
    s.llm.apiKeyEnv = "MY_MODEL_KEY";
    s.llm.temperature = 0.25;
    s.llm.maxTokens = 2048;
    s.llm.timeoutSeconds = 90;
    s.llm.maxRetries = 2;
    s.llm.concurrency = 5;
    s.llm.pricePromptPerMillion = 2.5;
    s.llm.priceCompletionPerMillion = 10;
    s.command.command = "./ask.sh --fast";
    s.command.timeoutSeconds = 42;
    s.llmShare = 0.4;
    s.promptsDir = KX_PROMPTS_DIR;
    config.keySource = ProposerConfig::KeySource::Keychain;
    return config;
}

/// Every byte QSettings wrote, and every value it holds.
QString settingsDump()
{
    QSettings settings;
    settings.sync();
    QFile file(settings.fileName());
    QString dump;
    if (file.open(QIODevice::ReadOnly))
        dump = QString::fromUtf8(file.readAll());
    for (const QString &key : settings.allKeys())
        dump += QLatin1Char('\n') + key + QLatin1Char('=') + settings.value(key).toString();
    return dump;
}

void waitForCheck(ProposerSettingsDialog &dialog)
{
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.isValidating(), 10000);
}

/// One request to a secret store, waited for; nullopt when no answer came.
std::optional<SecretResult> ask(const std::function<void(SecretStore::Done)> &request)
{
    std::optional<SecretResult> answer;
    request([&answer](const SecretResult &result) { answer = result; });
    if (!QTest::qWaitFor([&answer] { return answer.has_value(); }, 5000))
        return std::nullopt;
    return answer;
}

} // namespace

class TestProposerSettings : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void configRoundTripLeavesTheKeyOut();
    void dialogRoundTripThroughSettings();
    void typedKeyGoesToTheKeychainOnly();
    void validationMessages_data();
    void validationMessages();
    void sessionFallback_data();
    void sessionFallback();
    void keychainUnavailableKeepsTheKeyForTheSession();
    void refusingKeychainKeepsTheDialogOpen();
    void keychainUnavailableAtStart();
    void noKeySavedAtStart();
    void stopWhileReadingTheKey();
    void copiesPromptTemplates();
    void runPanelSummary_data();
    void runPanelSummary();

private:
    QTemporaryDir m_dir;
};

void TestProposerSettings::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("KernelExplorerTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_proposersettings"));
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
}

void TestProposerSettings::init()
{
    QSettings().clear();
}

void TestProposerSettings::configRoundTripLeavesTheKeyOut()
{
    ProposerConfig config = fullConfig();
    config.settings.llm.apiKey = kSecret.toStdString();
    {
        QSettings settings;
        config.save(settings);
    }
    const ProposerConfig loaded = ProposerConfig::load(QSettings());
    ProposerConfig expected = config;
    expected.settings.llm.apiKey.clear();
    QVERIFY(loaded == expected);
    QVERIFY(!settingsDump().contains(kSecret));
    QVERIFY(settingsDump().contains(QStringLiteral("gpt-x")));

    // Nothing saved: the defaults of core.
    QSettings().clear();
    QVERIFY(ProposerConfig::load(QSettings()) == ProposerConfig{});
}

void TestProposerSettings::dialogRoundTripThroughSettings()
{
    SearchBridge bridge;
    test::FakeSecretStore store;
    RunPanel panel(&bridge);
    panel.setSecretStore(&store);
    QCOMPARE(panel.proposerSummaryText(), QStringLiteral("Proposer: template"));

    QPointer<ProposerSettingsDialog> dialog = panel.showProposerSettings();
    QVERIFY(dialog);
    QSignalSpy accepted(dialog.data(), &QDialog::accepted);
    auto *kind = child<QComboBox>(dialog, "proposerKind");
    kind->setCurrentIndex(kind->findData(QStringLiteral("mix")));
    child<QLineEdit>(dialog, "proposerEndpoint")->setText(QStringLiteral("https://api.example.com/v1"));
    child<QLineEdit>(dialog, "proposerModel")->setText(QStringLiteral("gpt-x"));
    child<QLineEdit>(dialog, "proposerKeyVariable")->setText(QStringLiteral("MY_MODEL_KEY"));
    child<QDoubleSpinBox>(dialog, "proposerTemperature")->setValue(0.25);
    child<QSpinBox>(dialog, "proposerMaxTokens")->setValue(2048);
    child<QDoubleSpinBox>(dialog, "proposerTimeout")->setValue(90);
    child<QSpinBox>(dialog, "proposerRetries")->setValue(2);
    child<QSpinBox>(dialog, "proposerConcurrency")->setValue(5);
    child<QDoubleSpinBox>(dialog, "proposerPricePrompt")->setValue(2.5);
    child<QDoubleSpinBox>(dialog, "proposerPriceCompletion")->setValue(10);
    child<QLineEdit>(dialog, "proposerCommand")->setText(QStringLiteral("./ask.sh --fast"));
    child<QDoubleSpinBox>(dialog, "proposerCommandTimeout")->setValue(42);
    child<QSpinBox>(dialog, "proposerShare")->setValue(40);
    child<QLineEdit>(dialog, "proposerPromptsDir")->setText(QStringLiteral(KX_PROMPTS_DIR));
    child<QRadioButton>(dialog, "proposerKeyFromKeychain")->setChecked(true);
    dialog->accept();
    QTRY_COMPARE(accepted.count(), 1);

    QVERIFY(panel.proposerConfig() == fullConfig());
    QCOMPARE(panel.proposerSummaryText(), QStringLiteral("Proposer: mix: 60% template, 40% gpt-x"));
    QCOMPARE(QSettings().value(QStringLiteral("proposer/llm/model")).toString(), QStringLiteral("gpt-x"));
    QCOMPARE(QSettings().value(QStringLiteral("proposer/llm/keySource")).toString(), QStringLiteral("keychain"));

    // A new window reads it back, and the dialog shows it again.
    RunPanel later(&bridge);
    later.setSecretStore(&store);
    QVERIFY(later.proposerConfig() == fullConfig());
    QCOMPARE(later.proposerSummaryText(), panel.proposerSummaryText());
    QPointer<ProposerSettingsDialog> again = later.showProposerSettings();
    QCOMPARE(child<QLineEdit>(again, "proposerModel")->text(), QStringLiteral("gpt-x"));
    QCOMPARE(child<QSpinBox>(again, "proposerShare")->value(), 40);
    QCOMPARE(child<QLineEdit>(again, "proposerCommand")->text(), QStringLiteral("./ask.sh --fast"));
    QVERIFY(child<QRadioButton>(again, "proposerKeyFromKeychain")->isChecked());
    QVERIFY(again->config() == fullConfig());
    again->reject();
}

void TestProposerSettings::typedKeyGoesToTheKeychainOnly()
{
    SearchBridge bridge;
    test::FakeSecretStore store;
    RunPanel panel(&bridge);
    panel.setSecretStore(&store);
    QPointer<ProposerSettingsDialog> dialog = panel.showProposerSettings();
    QSignalSpy accepted(dialog.data(), &QDialog::accepted);
    auto *kind = child<QComboBox>(dialog, "proposerKind");
    kind->setCurrentIndex(kind->findData(QStringLiteral("llm")));
    child<QLineEdit>(dialog, "proposerModel")->setText(QStringLiteral("gpt-x"));
    child<QRadioButton>(dialog, "proposerKeyFromKeychain")->setChecked(true);
    QTRY_VERIFY(dialog->keyStatusText().contains(QStringLiteral("No API key is saved")));
    child<QLineEdit>(dialog, "proposerKey")->setText(kSecret);
    // OK saves the typed key first.
    dialog->accept();
    QTRY_COMPARE(accepted.count(), 1);

    QCOMPARE(store.entries().value(ProposerConfig::keychainEntry()), kSecret);
    QVERIFY(panel.proposerConfig().settings.llm.apiKey.empty());
    QVERIFY(panel.proposerConfig().keySource == ProposerConfig::KeySource::Keychain);
    const QString dump = settingsDump();
    QVERIFY2(dump.contains(QStringLiteral("gpt-x")), qPrintable(dump)); // The settings were written ...
    QVERIFY2(!dump.contains(kSecret), qPrintable(dump));                // ... but not the key.
    QCOMPARE(panel.proposerSummaryText(), QStringLiteral("Proposer: LLM gpt-x"));
    QVERIFY(panel.findChild<QLabel *>(QStringLiteral("runProposer"))->toolTip().contains(QStringLiteral("keychain")));

    // A dialog opened later says a key is there, without showing it.
    QPointer<ProposerSettingsDialog> again = panel.showProposerSettings();
    QTRY_VERIFY(again->keyStatusText().contains(QStringLiteral("is saved")));
    QVERIFY(child<QLineEdit>(again, "proposerKey")->text().isEmpty());
    child<QPushButton>(again, "proposerRemoveKey")->click();
    QTRY_VERIFY(store.entries().isEmpty());
    again->reject();
}

void TestProposerSettings::validationMessages_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("endpoint");
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("promptsDir");
    QTest::addColumn<QString>("expected"); // Part of the message; empty: valid.

    const QString local = QStringLiteral("http://127.0.0.1:8000/v1");
    const QString missing = m_dir.filePath(QStringLiteral("no-such-prompts"));
    QTest::newRow("template") << "template"
                              << ""
                              << ""
                              << ""
                              << ""
                              << "";
    QTest::newRow("llm") << "llm" << local << "gpt-x"
                         << ""
                         << ""
                         << "";
    QTest::newRow("llm without model") << "llm" << local << ""
                                       << ""
                                       << ""
                                       << "needs a model";
    QTest::newRow("llm with bad endpoint") << "llm"
                                           << "ftp://example.com"
                                           << "gpt-x"
                                           << ""
                                           << ""
                                           << "endpoint";
    QTest::newRow("command") << "command"
                             << ""
                             << ""
                             << "./ask.sh"
                             << ""
                             << "";
    QTest::newRow("command without command") << "command" << local << ""
                                             << ""
                                             << ""
                                             << "needs a command";
    QTest::newRow("mix without model or command") << "mix" << local << ""
                                                  << ""
                                                  << ""
                                                  << "needs a command or a model name";
    QTest::newRow("missing prompts folder") << "llm" << local << "gpt-x"
                                            << "" << missing << "does not exist";
}

void TestProposerSettings::validationMessages()
{
    QFETCH(QString, kind);
    QFETCH(QString, endpoint);
    QFETCH(QString, model);
    QFETCH(QString, command);
    QFETCH(QString, promptsDir);
    QFETCH(QString, expected);

    // Start from a valid config, so that a message can only come from the field under test.
    ProposerSettingsDialog dialog(ProposerConfig{}, nullptr);
    waitForCheck(dialog);
    QCOMPARE(dialog.validationMessage(), QString());
    auto *kindBox = child<QComboBox>(&dialog, "proposerKind");
    kindBox->setCurrentIndex(kindBox->findData(kind));
    child<QLineEdit>(&dialog, "proposerEndpoint")->setText(endpoint);
    child<QLineEdit>(&dialog, "proposerModel")->setText(model);
    child<QLineEdit>(&dialog, "proposerCommand")->setText(command);
    child<QLineEdit>(&dialog, "proposerPromptsDir")->setText(promptsDir);
    QSignalSpy checked(&dialog, &ProposerSettingsDialog::validated);
    QTRY_VERIFY_WITH_TIMEOUT(!checked.isEmpty(), 10000);
    waitForCheck(dialog);

    auto *label = child<QLabel>(&dialog, "proposerValidation");
    QPushButton *ok = child<QDialogButtonBox>(&dialog, "proposerButtons")->button(QDialogButtonBox::Ok);
    if (expected.isEmpty()) {
        QVERIFY2(dialog.validationMessage().isEmpty(), qPrintable(dialog.validationMessage()));
        QVERIFY(label->isHidden());
        QVERIFY(ok->isEnabled());
    } else {
        QVERIFY2(dialog.validationMessage().contains(expected), qPrintable(dialog.validationMessage()));
        QCOMPARE(label->text(), dialog.validationMessage());
        QVERIFY(!label->isHidden());
        QVERIFY(!ok->isEnabled());
        // OK does not close the dialog on invalid settings.
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        dialog.accept();
        QTest::qWait(50);
        QCOMPARE(accepted.count(), 0);
    }
}

void TestProposerSettings::sessionFallback_data()
{
    QTest::addColumn<bool>("available");
    QTest::addColumn<bool>("refusing");
    QTest::addColumn<int>("writeStatus");  // SecretResult::Status of the write
    QTest::addColumn<bool>("sessionOnly"); // ... and whether it was kept in memory only

    QTest::newRow("keychain") << true << false << int(SecretResult::Status::Ok) << false;
    QTest::newRow("no keychain") << false << false << int(SecretResult::Status::Ok) << true;
    QTest::newRow("keychain refuses") << true << true << int(SecretResult::Status::Failed) << false;
}

void TestProposerSettings::sessionFallback()
{
    QFETCH(bool, available);
    QFETCH(bool, refusing);
    QFETCH(int, writeStatus);
    QFETCH(bool, sessionOnly);

    test::FakeSecretStore keychain(available);
    keychain.setRefusing(refusing);
    SessionFallbackSecretStore store(&keychain);
    const QString entry = ProposerConfig::keychainEntry();
    QObject context;

    const auto written = ask([&](SecretStore::Done done) { store.write(entry, kSecret, &context, done); });
    QVERIFY(written);
    QCOMPARE(int(written->status), writeStatus);
    QCOMPARE(written->sessionOnly, sessionOnly);
    // Either the keychain has the key or the session has it, never both; a refusal leaves it nowhere.
    QCOMPARE(keychain.entries().value(entry), written->ok() && !sessionOnly ? kSecret : QString());
    QCOMPARE(store.holdsForSession(entry), sessionOnly);
    if (sessionOnly)
        QVERIFY2(written->message.contains(QStringLiteral("D-Bus")), qPrintable(written->message));

    const auto read = ask([&](SecretStore::Done done) { store.read(entry, &context, done); });
    QVERIFY(read);
    if (written->ok()) {
        QVERIFY(read->ok());
        QCOMPARE(read->secret, kSecret);
        QCOMPARE(read->sessionOnly, sessionOnly);
    } else {
        QCOMPARE(int(read->status), int(SecretResult::Status::Failed));
        QVERIFY(read->secret.isEmpty());
    }

    if (sessionOnly) {
        // Once a keychain can take it, the copy in memory goes.
        keychain.setAvailable(true);
        const auto saved = ask([&](SecretStore::Done done) { store.write(entry, kSecret, &context, done); });
        QVERIFY(saved && saved->ok() && !saved->sessionOnly);
        QVERIFY(!store.holdsForSession(entry));
        QCOMPARE(keychain.entries().value(entry), kSecret);
        keychain.setAvailable(false);
        QVERIFY(ask([&](SecretStore::Done done) { store.write(entry, kSecret, &context, done); })->sessionOnly);
    }

    const auto removed = ask([&](SecretStore::Done done) { store.remove(entry, &context, done); });
    QVERIFY(removed);
    QCOMPARE(removed->ok(), written->ok());
    QVERIFY(!store.holdsForSession(entry));
    const auto gone = ask([&](SecretStore::Done done) { store.read(entry, &context, done); });
    QVERIFY(gone);
    QVERIFY(!gone->ok());
    QVERIFY(gone->secret.isEmpty());
}

void TestProposerSettings::keychainUnavailableKeepsTheKeyForTheSession()
{
    test::FakeSecretStore keychain(false);
    SessionFallbackSecretStore store(&keychain);
    ProposerConfig config;
    config.settings.kind = ProposerKind::Llm;
    config.settings.llm.model = "gpt-x";
    config.keySource = ProposerConfig::KeySource::Keychain;
    ProposerSettingsDialog dialog(config, &store);
    QTRY_VERIFY(dialog.keyStatusText().contains(QStringLiteral("unavailable")));
    // The message says what happens to a key entered now, and the other way.
    QVERIFY2(dialog.keyStatusText().contains(QStringLiteral("session only")), qPrintable(dialog.keyStatusText()));
    QVERIFY2(dialog.keyStatusText().contains(QStringLiteral("environment variable")),
             qPrintable(dialog.keyStatusText()));

    // OK keeps the typed key in memory and closes.
    QSignalSpy accepted(&dialog, &QDialog::accepted);
    child<QLineEdit>(&dialog, "proposerKey")->setText(kSecret);
    dialog.accept();
    QTRY_COMPARE(accepted.count(), 1);
    QVERIFY2(dialog.keyStatusText().contains(QStringLiteral("kept for this session only")),
             qPrintable(dialog.keyStatusText()));
    QVERIFY(child<QLineEdit>(&dialog, "proposerKey")->text().isEmpty());
    QVERIFY(keychain.entries().isEmpty());
    QVERIFY(store.holdsForSession(ProposerConfig::keychainEntry()));
    QVERIFY(dialog.config().keySource == ProposerConfig::KeySource::Keychain);
    QVERIFY(dialog.config().settings.llm.apiKey.empty());
    QVERIFY(!settingsDump().contains(kSecret));

    // Opened again in the same session, the dialog says the key is there, for this session.
    ProposerSettingsDialog again(config, &store);
    QTRY_VERIFY(again.keyStatusText().contains(QStringLiteral("for this session only")));
    QVERIFY(child<QLineEdit>(&again, "proposerKey")->text().isEmpty());
}

void TestProposerSettings::refusingKeychainKeepsTheDialogOpen()
{
    test::FakeSecretStore keychain;
    keychain.setRefusing(true);
    SessionFallbackSecretStore store(&keychain);
    ProposerConfig config;
    config.settings.kind = ProposerKind::Llm;
    config.settings.llm.model = "gpt-x";
    config.keySource = ProposerConfig::KeySource::Keychain;
    ProposerSettingsDialog dialog(config, &store);
    QTRY_VERIFY(dialog.keyStatusText().contains(QStringLiteral("denied")));

    // A typed key cannot be saved: OK stays open and says why ...
    QSignalSpy accepted(&dialog, &QDialog::accepted);
    child<QLineEdit>(&dialog, "proposerKey")->setText(kSecret);
    QSignalSpy status(&dialog, &ProposerSettingsDialog::keyStatusChanged);
    dialog.accept();
    QTRY_VERIFY(status.count() >= 2); // "Saving …", then the failure.
    QVERIFY2(dialog.keyStatusText().contains(QStringLiteral("keychain failed")), qPrintable(dialog.keyStatusText()));
    QTest::qWait(50);
    QCOMPARE(accepted.count(), 0);
    QVERIFY(keychain.entries().isEmpty());
    QVERIFY(!store.holdsForSession(ProposerConfig::keychainEntry())); // Not worked around: the user said no.

    // ... and with an environment variable instead it closes.
    child<QRadioButton>(&dialog, "proposerKeyFromEnvironment")->setChecked(true);
    dialog.accept();
    QTRY_COMPARE(accepted.count(), 1);
    QVERIFY(dialog.config().keySource == ProposerConfig::KeySource::Environment);
    QVERIFY(!settingsDump().contains(kSecret));
}

void TestProposerSettings::keychainUnavailableAtStart()
{
    SearchBridge bridge;
    bridge.setArchive(archiveRef(m_dir.filePath(QStringLiteral("start.kxdb")), ArchiveMode::ReadWrite));
    test::FakeSecretStore keychain(false);
    SessionFallbackSecretStore store(&keychain);
    RunPanel panel(&bridge);
    panel.setSecretStore(&store);
    ProposerConfig config;
    config.settings.kind = ProposerKind::Llm;
    config.settings.llm.model = "gpt-x";
    config.keySource = ProposerConfig::KeySource::Keychain;
    panel.setProposerConfig(config);
    panel.setOp(*findBuiltInOp("relu"));
    QVERIFY(panel.startAction()->isEnabled());

    // No keychain and no key kept for the session: reading the key ...
    QVERIFY(panel.startSearch());
    QVERIFY(!panel.startAction()->isEnabled());
    QTRY_VERIFY(panel.messageText().contains(QStringLiteral("unavailable")));
    QVERIFY2(panel.messageText().contains(QStringLiteral("session only")), qPrintable(panel.messageText()));
    QVERIFY2(panel.messageText().contains(QStringLiteral("environment variable")), qPrintable(panel.messageText()));
    QCOMPARE(bridge.state(), SearchBridge::State::Idle); // ... and no search began.
    QVERIFY(panel.startAction()->isEnabled());
    QCOMPARE(keychain.requests(), 1);

    // An environment variable needs no keychain.
    config.keySource = ProposerConfig::KeySource::Environment;
    panel.setProposerConfig(config);
    QVERIFY(!panel.proposerConfig().needsKeychainKey());
}

void TestProposerSettings::noKeySavedAtStart()
{
    SearchBridge bridge;
    bridge.setArchive(archiveRef(m_dir.filePath(QStringLiteral("nokey.kxdb")), ArchiveMode::ReadWrite));
    test::FakeSecretStore store;
    RunPanel panel(&bridge);
    panel.setSecretStore(&store);
    ProposerConfig config;
    config.settings.kind = ProposerKind::Mix;
    config.settings.llm.model = "gpt-x";
    config.keySource = ProposerConfig::KeySource::Keychain;
    panel.setProposerConfig(config);
    panel.setOp(*findBuiltInOp("relu"));
    QVERIFY(panel.startSearch());
    QTRY_VERIFY(panel.messageText().contains(QStringLiteral("No API key is saved")));
    QCOMPARE(bridge.state(), SearchBridge::State::Idle);
}

void TestProposerSettings::stopWhileReadingTheKey()
{
    SearchBridge bridge;
    bridge.setArchive(archiveRef(m_dir.filePath(QStringLiteral("stop.kxdb")), ArchiveMode::ReadWrite));
    test::FakeSecretStore store;
    store.setEntry(ProposerConfig::keychainEntry(), kSecret);
    RunPanel panel(&bridge);
    panel.setSecretStore(&store);
    ProposerConfig config;
    config.settings.kind = ProposerKind::Llm;
    config.settings.llm.model = "gpt-x";
    config.keySource = ProposerConfig::KeySource::Keychain;
    panel.setProposerConfig(config);
    panel.setOp(*findBuiltInOp("relu"));
    QSignalSpy stateChanged(&bridge, &SearchBridge::stateChanged);
    QVERIFY(panel.startSearch());
    QVERIFY(panel.stopAction()->isEnabled());
    panel.stopAction()->trigger(); // Before the keychain answers.
    QTest::qWait(100);
    QCOMPARE(panel.messageText(), QStringLiteral("Stopped before the search began."));
    QCOMPARE(stateChanged.count(), 0); // The key arrived, but no search was started with it.
    QVERIFY(panel.startAction()->isEnabled());
    QVERIFY(!panel.stopAction()->isEnabled());
}

void TestProposerSettings::copiesPromptTemplates()
{
    const QString folder = m_dir.filePath(QStringLiteral("my-prompts"));
    QVERIFY(QDir().mkpath(folder));
    {
        QFile mine(QDir(folder).filePath(QStringLiteral("system.txt")));
        QVERIFY(mine.open(QIODevice::WriteOnly));
        mine.write("my own system prompt\n");
    }
    ProposerConfig config;
    config.settings.kind = ProposerKind::Command;
    config.settings.command.command = "./ask.sh";
    ProposerSettingsDialog dialog(config, nullptr);
    QSignalSpy copied(&dialog, &ProposerSettingsDialog::promptTemplatesCopied);
    dialog.copyPromptTemplates(folder);
    QTRY_COMPARE_WITH_TIMEOUT(copied.count(), 1, 10000);
    QCOMPARE(copied.at(0).at(1).toString(), QString());
    for (const std::string &name : PromptTemplates::requiredNames()) {
        const QString file = QDir(folder).filePath(QString::fromStdString(name) + QStringLiteral(".txt"));
        QVERIFY2(QFile::exists(file), qPrintable(file));
    }
    QFile mine(QDir(folder).filePath(QStringLiteral("system.txt")));
    QVERIFY(mine.open(QIODevice::ReadOnly));
    QCOMPARE(mine.readAll(), QByteArray("my own system prompt\n")); // Edits are kept.
    QVERIFY(child<QLabel>(&dialog, "proposerPromptsNote")->text().contains(QStringLiteral("Kept 1")));

    // The dialog now uses the copies, and they pass the check.
    QCOMPARE(QDir::fromNativeSeparators(child<QLineEdit>(&dialog, "proposerPromptsDir")->text()), folder);
    QCOMPARE(QString::fromStdString(dialog.config().settings.promptsDir), folder);
    QSignalSpy checked(&dialog, &ProposerSettingsDialog::validated);
    QTRY_VERIFY_WITH_TIMEOUT(!checked.isEmpty(), 10000);
    waitForCheck(dialog);
    QVERIFY2(dialog.validationMessage().isEmpty(), qPrintable(dialog.validationMessage()));
}

void TestProposerSettings::runPanelSummary_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("command");
    QTest::addColumn<double>("share");
    QTest::addColumn<QString>("summary");

    QTest::newRow("template") << "template"
                              << "gpt-x"
                              << "./ask.sh" << 0.3 << "Proposer: template";
    QTest::newRow("llm") << "llm"
                         << "gpt-x"
                         << "" << 0.3 << "Proposer: LLM gpt-x";
    QTest::newRow("command") << "command"
                             << ""
                             << "./ask.sh" << 0.3 << "Proposer: command ./ask.sh";
    QTest::newRow("mix with model") << "mix"
                                    << "gpt-x"
                                    << "./ask.sh" << 0.3 << "Proposer: mix: 70% template, 30% gpt-x";
    QTest::newRow("mix with command") << "mix"
                                      << ""
                                      << "./ask.sh" << 0.25 << "Proposer: mix: 75% template, 25% command ./ask.sh";
}

void TestProposerSettings::runPanelSummary()
{
    QFETCH(QString, kind);
    QFETCH(QString, model);
    QFETCH(QString, command);
    QFETCH(double, share);
    QFETCH(QString, summary);

    SearchBridge bridge;
    RunPanel panel(&bridge);
    ProposerConfig config;
    config.settings.kind = *proposerKindFromString(kind.toStdString());
    config.settings.llm.model = model.toStdString();
    config.settings.command.command = command.toStdString();
    config.settings.llmShare = share;
    panel.setProposerConfig(config);
    QCOMPARE(panel.proposerSummaryText(), summary);
    // The label is what the dock shows.
    QCOMPARE(panel.findChild<QLabel *>(QStringLiteral("runProposer"))->text(), summary);
    // Settings can be opened from the panel while no search runs.
    QVERIFY(panel.proposerSettingsAction()->isEnabled());
    QVERIFY(panel.findChild<QWidget *>(QStringLiteral("runProposerSettings"))->isEnabled());
}

QTEST_MAIN(TestProposerSettings)
#include "tst_proposersettings.moc"
