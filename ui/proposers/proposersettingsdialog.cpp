#include "ui/proposers/proposersettingsdialog.h"

#include "ui/common/format.h"
#include "ui/proposers/apikeyeditor.h"
#include "ui/proposers/connectiontester.h"
#include "ui/proposers/prompttemplatecopier.h"

#include "core/propose/proposerfactory.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>

namespace kx::ui {

namespace {

constexpr int kValidationDelayMs = 150;

QDoubleSpinBox *doubleSpinBox(double minimum, double maximum, int decimals, const QString &suffix, QWidget *parent)
{
    auto *box = new QDoubleSpinBox(parent);
    box->setRange(minimum, maximum);
    box->setDecimals(decimals);
    box->setSuffix(suffix);
    box->setAccelerated(true);
    return box;
}

QSpinBox *spinBox(int minimum, int maximum, const QString &suffix, QWidget *parent)
{
    auto *box = new QSpinBox(parent);
    box->setRange(minimum, maximum);
    box->setSuffix(suffix);
    box->setAccelerated(true);
    return box;
}

void setWarning(QLabel *label, bool warning)
{
    QPalette palette = label->palette();
    palette.setColor(QPalette::WindowText,
                     warning ? Format::warningColor() : label->parentWidget()->palette().color(QPalette::WindowText));
    label->setPalette(palette);
}

} // namespace

ProposerSettingsDialog::ProposerSettingsDialog(const ProposerConfig &config, SecretStore *secrets, QWidget *parent)
    : QDialog(parent)
    , m_kind(new QComboBox(this))
    , m_kindHelp(new QLabel(this))
    , m_llmGroup(new QGroupBox(tr("Language Model"), this))
    , m_endpoint(new QLineEdit(m_llmGroup))
    , m_model(new QLineEdit(m_llmGroup))
    , m_keyEditor(new ApiKeyEditor(secrets, m_llmGroup))
    , m_testConnection(new QPushButton(tr("Test Connection"), m_llmGroup))
    , m_connectionStatus(new QLabel(m_llmGroup))
    , m_tester(new ConnectionTester(this))
    , m_temperature(doubleSpinBox(0, 2, 2, {}, m_llmGroup))
    , m_maxTokens(spinBox(1, 1000000, {}, m_llmGroup))
    , m_timeout(doubleSpinBox(1, 3600, 0, tr(" s"), m_llmGroup))
    , m_retries(spinBox(0, 20, {}, m_llmGroup))
    , m_concurrency(spinBox(1, 256, {}, m_llmGroup))
    , m_pricePrompt(doubleSpinBox(0, 1000000, 3, {}, m_llmGroup))
    , m_priceCompletion(doubleSpinBox(0, 1000000, 3, {}, m_llmGroup))
    , m_commandGroup(new QGroupBox(tr("Command"), this))
    , m_command(new QLineEdit(m_commandGroup))
    , m_commandTimeout(doubleSpinBox(1, 86400, 0, tr(" s"), m_commandGroup))
    , m_mixGroup(new QGroupBox(tr("Mix"), this))
    , m_share(spinBox(0, 100, tr(" %"), m_mixGroup))
    , m_promptsGroup(new QGroupBox(tr("Prompt Templates"), this))
    , m_promptsDir(new QLineEdit(m_promptsGroup))
    , m_promptsNote(new QLabel(m_promptsGroup))
    , m_validationLabel(new QLabel(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
    , m_validationTimer(new QTimer(this))
{
    setWindowTitle(tr("Proposer Settings"));
    setObjectName(QStringLiteral("proposerSettingsDialog"));

    m_kind->setObjectName(QStringLiteral("proposerKind"));
    m_kind->addItem(tr("Template (offline)"), QStringLiteral("template"));
    m_kind->addItem(tr("Language model"), QStringLiteral("llm"));
    m_kind->addItem(tr("Command"), QStringLiteral("command"));
    m_kind->addItem(tr("Mix of template and model (or command)"), QStringLiteral("mix"));
    m_kindHelp->setWordWrap(true);

    m_endpoint->setObjectName(QStringLiteral("proposerEndpoint"));
    m_endpoint->setPlaceholderText(QStringLiteral("https://api.example.com/v1"));
    m_endpoint->setToolTip(tr("Base URL of an OpenAI-compatible API; requests go to {URL}/chat/completions. "
                              "Local servers (llama.cpp, vLLM, Ollama) work too."));
    m_model->setObjectName(QStringLiteral("proposerModel"));
    m_keyEditor->setObjectName(QStringLiteral("proposerKeyEditor"));
    m_testConnection->setObjectName(QStringLiteral("proposerTestConnection"));
    m_testConnection->setToolTip(tr("Send one short request to the endpoint with this model and key"));
    m_connectionStatus->setObjectName(QStringLiteral("proposerConnectionStatus"));
    m_connectionStatus->setWordWrap(true);
    m_connectionStatus->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_connectionStatus->hide();
    m_temperature->setObjectName(QStringLiteral("proposerTemperature"));
    m_temperature->setSingleStep(0.1);
    m_maxTokens->setObjectName(QStringLiteral("proposerMaxTokens"));
    m_timeout->setObjectName(QStringLiteral("proposerTimeout"));
    m_timeout->setToolTip(tr("Longest wait for the server to answer"));
    m_retries->setObjectName(QStringLiteral("proposerRetries"));
    m_retries->setToolTip(tr("Extra attempts after rate limits (429), server and network errors"));
    m_concurrency->setObjectName(QStringLiteral("proposerConcurrency"));
    m_concurrency->setToolTip(tr("Requests in flight at once"));
    m_pricePrompt->setObjectName(QStringLiteral("proposerPricePrompt"));
    m_priceCompletion->setObjectName(QStringLiteral("proposerPriceCompletion"));
    for (QDoubleSpinBox *price : {m_pricePrompt, m_priceCompletion})
        price->setToolTip(tr("For the cost estimate, in your currency per million tokens"));

    m_command->setObjectName(QStringLiteral("proposerCommand"));
    m_command->setToolTip(tr("Run with /bin/sh -c: reads the prompt on stdin and writes a candidate (CUDA code and a "
                             "launch plan) on stdout"));
    m_commandTimeout->setObjectName(QStringLiteral("proposerCommandTimeout"));
    m_share->setObjectName(QStringLiteral("proposerShare"));
    m_share->setToolTip(tr("Share of candidates asked of the model, or of the command when no model is set; the "
                           "template proposer makes the rest"));
    m_promptsDir->setObjectName(QStringLiteral("proposerPromptsDir"));
    m_promptsDir->setPlaceholderText(tr("the installed templates"));
    m_promptsNote->setObjectName(QStringLiteral("proposerPromptsNote"));
    m_promptsNote->setWordWrap(true);
    m_promptsNote->hide(); // Says how copying went.
    m_validationLabel->setObjectName(QStringLiteral("proposerValidation"));
    m_buttons->setObjectName(QStringLiteral("proposerButtons"));
    m_validationLabel->setWordWrap(true);
    m_validationLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *kindForm = new QFormLayout;
    kindForm->addRow(tr("&Proposer:"), m_kind);
    kindForm->addRow(QString(), m_kindHelp);

    auto *testRow = new QHBoxLayout;
    testRow->addWidget(m_testConnection);
    testRow->addWidget(m_connectionStatus, 1);

    auto *llmForm = new QFormLayout(m_llmGroup);
    llmForm->addRow(tr("E&ndpoint:"), m_endpoint);
    llmForm->addRow(tr("&Model:"), m_model);
    llmForm->addRow(tr("API key:"), m_keyEditor);
    llmForm->addRow(tr("&Temperature:"), m_temperature);
    llmForm->addRow(tr("Ma&x tokens:"), m_maxTokens);
    llmForm->addRow(tr("Time&out:"), m_timeout);
    llmForm->addRow(tr("Retr&ies:"), m_retries);
    llmForm->addRow(tr("Con&current requests:"), m_concurrency);
    llmForm->addRow(tr("Price per 1M prompt tokens:"), m_pricePrompt);
    llmForm->addRow(tr("Price per 1M completion tokens:"), m_priceCompletion);
    llmForm->addRow(QString(), testRow);

    auto *commandForm = new QFormLayout(m_commandGroup);
    commandForm->addRow(tr("Command &line:"), m_command);
    commandForm->addRow(tr("Timeo&ut:"), m_commandTimeout);

    auto *mixForm = new QFormLayout(m_mixGroup);
    mixForm->addRow(tr("S&hare of model or command:"), m_share);

    auto *promptsRow = new QHBoxLayout;
    promptsRow->addWidget(m_promptsDir, 1);
    auto *browse = new QToolButton(m_promptsGroup);
    browse->setText(tr("Bro&wse…"));
    browse->setToolTip(tr("Use the templates in another folder"));
    connect(browse, &QToolButton::clicked, this, &ProposerSettingsDialog::choosePromptsFolder);
    promptsRow->addWidget(browse);
    auto *copy = new QPushButton(tr("Cop&y Templates To…"), m_promptsGroup);
    copy->setObjectName(QStringLiteral("proposerCopyTemplates"));
    copy->setToolTip(tr("Copy the installed prompt templates into a folder of your choice to edit them there"));
    connect(copy, &QPushButton::clicked, this, &ProposerSettingsDialog::chooseCopyFolder);
    promptsRow->addWidget(copy);
    auto *promptsForm = new QFormLayout(m_promptsGroup);
    auto *folderLabel = new QLabel(tr("&Folder:"), m_promptsGroup);
    folderLabel->setBuddy(m_promptsDir);
    promptsForm->addRow(folderLabel, promptsRow);
    promptsForm->addRow(QString(), m_promptsNote);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(kindForm);
    layout->addWidget(m_llmGroup);
    layout->addWidget(m_commandGroup);
    layout->addWidget(m_mixGroup);
    layout->addWidget(m_promptsGroup);
    layout->addWidget(m_validationLabel);
    layout->addStretch();
    layout->addWidget(m_buttons);

    connect(m_buttons, &QDialogButtonBox::accepted, this, &ProposerSettingsDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &ProposerSettingsDialog::reject);
    connect(m_testConnection, &QPushButton::clicked, this, &ProposerSettingsDialog::testConnection);
    connect(m_tester, &ConnectionTester::finished, this, &ProposerSettingsDialog::finishConnectionTest);
    connect(m_keyEditor, &ApiKeyEditor::statusChanged, this, &ProposerSettingsDialog::keyStatusChanged);
    connect(m_keyEditor, &ApiKeyEditor::sourceChanged, this, &ProposerSettingsDialog::scheduleValidation);
    connect(m_keyEditor, &ApiKeyEditor::saved, this, [this](bool ok) {
        // OK saves a typed key first; when it cannot be saved the dialog stays open and the key line says why.
        const bool acceptNow = m_acceptWhenReady && ok;
        m_acceptWhenReady = false;
        if (acceptNow)
            accept();
    });

    m_validationTimer->setSingleShot(true);
    m_validationTimer->setInterval(kValidationDelayMs);
    connect(m_validationTimer, &QTimer::timeout, this, &ProposerSettingsDialog::validate);
    connect(m_kind, &QComboBox::currentIndexChanged, this, [this] {
        updateEnabled();
        scheduleValidation();
    });
    for (QLineEdit *edit : {m_endpoint, m_model, m_command, m_promptsDir})
        connect(edit, &QLineEdit::textChanged, this, &ProposerSettingsDialog::scheduleValidation);
    for (QDoubleSpinBox *box : {m_temperature, m_timeout, m_pricePrompt, m_priceCompletion, m_commandTimeout})
        connect(box, &QDoubleSpinBox::valueChanged, this, &ProposerSettingsDialog::scheduleValidation);
    for (QSpinBox *box : {m_maxTokens, m_retries, m_concurrency, m_share})
        connect(box, &QSpinBox::valueChanged, this, &ProposerSettingsDialog::scheduleValidation);

    setConfig(config);
}

ProposerSettingsDialog::~ProposerSettingsDialog() = default;

ProposerConfig ProposerSettingsDialog::config() const
{
    ProposerConfig config = m_loaded;
    ProposerSettings &s = config.settings;
    s.kind = proposerKindFromString(m_kind->currentData().toString().toStdString()).value_or(ProposerKind::Template);
    s.llm.endpoint = m_endpoint->text().trimmed().toStdString();
    s.llm.model = m_model->text().trimmed().toStdString();
    s.llm.apiKeyEnv = m_keyEditor->variable().toStdString();
    s.llm.apiKey.clear();
    s.llm.temperature = m_temperature->value();
    s.llm.maxTokens = m_maxTokens->value();
    s.llm.timeoutSeconds = m_timeout->value();
    s.llm.maxRetries = m_retries->value();
    s.llm.concurrency = m_concurrency->value();
    s.llm.pricePromptPerMillion = m_pricePrompt->value();
    s.llm.priceCompletionPerMillion = m_priceCompletion->value();
    s.command.command = m_command->text().trimmed().toStdString();
    s.command.timeoutSeconds = m_commandTimeout->value();
    s.llmShare = m_share->value() / 100.0;
    s.promptsDir = QDir::fromNativeSeparators(m_promptsDir->text().trimmed()).toStdString();
    config.keySource = m_keyEditor->source();
    return config;
}

void ProposerSettingsDialog::setConfig(const ProposerConfig &config)
{
    m_loaded = config;
    m_loaded.settings.llm.apiKey.clear();
    const ProposerSettings &s = config.settings;
    const int kind = m_kind->findData(QString::fromLatin1(toString(s.kind)));
    m_kind->setCurrentIndex(kind < 0 ? 0 : kind);
    m_endpoint->setText(QString::fromStdString(s.llm.endpoint));
    m_model->setText(QString::fromStdString(s.llm.model));
    m_keyEditor->setSource(config.keySource, QString::fromStdString(s.llm.apiKeyEnv));
    m_temperature->setValue(s.llm.temperature);
    m_maxTokens->setValue(s.llm.maxTokens);
    m_timeout->setValue(s.llm.timeoutSeconds);
    m_retries->setValue(s.llm.maxRetries);
    m_concurrency->setValue(s.llm.concurrency);
    m_pricePrompt->setValue(s.llm.pricePromptPerMillion);
    m_priceCompletion->setValue(s.llm.priceCompletionPerMillion);
    m_command->setText(QString::fromStdString(s.command.command));
    m_commandTimeout->setValue(s.command.timeoutSeconds);
    m_share->setValue(int(std::lround(s.llmShare * 100)));
    m_promptsDir->setText(QDir::toNativeSeparators(QString::fromStdString(s.promptsDir)));
    updateEnabled();
    validate();
}

QString ProposerSettingsDialog::keyStatusText() const
{
    return m_keyEditor->statusText();
}

void ProposerSettingsDialog::scheduleValidation()
{
    m_validationTimer->start();
}

void ProposerSettingsDialog::validate()
{
    m_validationTimer->stop();
    m_validating = true;
    // checkProposerSettings reads the prompt folder: not on the GUI thread.
    QtConcurrent::run([settings = config().settings] {
        return checkProposerSettings(settings);
    }).then(this, m_validation.guard([this](const Status &status) {
        m_validating = false;
        m_validationMessage = status ? QString() : QString::fromStdString(status.error().message);
        m_validationLabel->setText(m_validationMessage);
        m_validationLabel->setVisible(!m_validationMessage.isEmpty());
        setWarning(m_validationLabel, true);
        m_buttons->button(QDialogButtonBox::Ok)->setEnabled(m_validationMessage.isEmpty());
        const bool acceptNow = m_acceptWhenReady && m_validationMessage.isEmpty();
        m_acceptWhenReady = false;
        emit validated(m_validationMessage.isEmpty(), m_validationMessage);
        if (acceptNow)
            accept();
    }));
}

void ProposerSettingsDialog::updateEnabled()
{
    const QString kind = m_kind->currentData().toString();
    const bool mix = kind == QLatin1String("mix");
    m_llmGroup->setEnabled(kind == QLatin1String("llm") || mix);
    m_commandGroup->setEnabled(kind == QLatin1String("command") || mix);
    m_mixGroup->setEnabled(mix);
    m_promptsGroup->setEnabled(kind != QLatin1String("template"));

    if (kind == QLatin1String("template"))
        m_kindHelp->setText(tr("Varies the op's kernel templates; needs no network and costs nothing."));
    else if (kind == QLatin1String("llm"))
        m_kindHelp->setText(tr("Asks an OpenAI-compatible chat model for every candidate."));
    else if (kind == QLatin1String("command"))
        m_kindHelp->setText(tr("Runs a program of yours with the prompt on stdin; it writes the candidate on stdout."));
    else
        m_kindHelp->setText(tr("The template proposer makes most candidates; a share goes to the model, or to the "
                               "command when no model is set. The template proposer steps in when they fail."));
}

void ProposerSettingsDialog::testConnection()
{
    m_tester->cancel();
    m_testingConnection = true;
    m_testConnection->setEnabled(false);
    LlmSettings llm = config().settings.llm;
    showConnectionStatus(tr("Testing the connection to %1…").arg(QString::fromStdString(llm.endpoint)), false);
    m_keyEditor->currentKey(this, m_connectionTest.guard([this, llm](const QString &key, const QString &error) mutable {
        if (!error.isEmpty()) {
            finishConnectionTest(false, tr("The connection test needs the API key: %1").arg(error));
            return;
        }
        llm.apiKey = key.toStdString(); // Empty: the client reads the environment variable.
        m_tester->start(llm);
    }));
}

void ProposerSettingsDialog::finishConnectionTest(bool ok, const QString &message)
{
    m_testingConnection = false;
    m_testConnection->setEnabled(true);
    showConnectionStatus(message, !ok);
    emit connectionTested(ok, message);
}

QString ProposerSettingsDialog::connectionStatusText() const
{
    return m_connectionStatus->text();
}

void ProposerSettingsDialog::showConnectionStatus(const QString &text, bool warning)
{
    m_connectionStatus->setText(text);
    m_connectionStatus->setVisible(!text.isEmpty());
    setWarning(m_connectionStatus, warning);
}

void ProposerSettingsDialog::copyPromptTemplates(const QString &folder)
{
    m_promptsNote->setText(tr("Copying the prompt templates…"));
    m_promptsNote->show();
    QtConcurrent::run(&PromptTemplateCopier::copyTo, folder)
        .then(this, [this, folder](const PromptTemplateCopier::Result &result) {
            if (!result.error.isEmpty()) {
                m_promptsNote->setText(result.error);
                setWarning(m_promptsNote, true);
                emit promptTemplatesCopied(folder, result.error);
                return;
            }
            m_promptsDir->setText(QDir::toNativeSeparators(folder));
            QString note = tr("Copied %n template(s) to %1; edit them there.", nullptr, result.copied)
                               .arg(QDir::toNativeSeparators(folder));
            if (result.kept > 0)
                note += QLatin1Char(' ') + tr("Kept %n file(s) that were there already.", nullptr, result.kept);
            m_promptsNote->setText(note);
            setWarning(m_promptsNote, false);
            emit promptTemplatesCopied(folder, {});
        });
}

void ProposerSettingsDialog::choosePromptsFolder()
{
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Prompt Templates Folder"), m_promptsDir->text());
    if (!folder.isEmpty())
        m_promptsDir->setText(QDir::toNativeSeparators(folder));
}

void ProposerSettingsDialog::chooseCopyFolder()
{
    const QString folder =
        QFileDialog::getExistingDirectory(this, tr("Copy Prompt Templates To"), m_promptsDir->text());
    if (!folder.isEmpty())
        copyPromptTemplates(folder);
}

void ProposerSettingsDialog::done(int result)
{
    // A test still waiting for its answer belongs to a dialog that is gone.
    m_connectionTest.invalidate();
    m_tester->cancel();
    m_testingConnection = false;
    m_testConnection->setEnabled(true);
    QDialog::done(result);
}

void ProposerSettingsDialog::accept()
{
    if (m_keyEditor->hasTypedKey()) {
        m_acceptWhenReady = true;
        m_keyEditor->saveKey(); // Accepts once the key is saved (ApiKeyEditor::saved).
        return;
    }
    if (m_validating || m_validationTimer->isActive()) {
        m_acceptWhenReady = true;
        validate();
        return;
    }
    if (!m_validationMessage.isEmpty())
        return;
    QDialog::accept();
}

} // namespace kx::ui
