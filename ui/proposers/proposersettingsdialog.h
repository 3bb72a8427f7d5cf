#pragma once

#include "ui/common/latestjob.h"
#include "ui/proposers/proposerconfig.h"

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTimer;

namespace kx::ui {

class ApiKeyEditor;
class ConnectionTester;
class SecretStore;

/**
 * Search ▸ Proposer Settings: who proposes candidates (template, language model, command or a mix), how to
 * reach the model and what it costs (with a connection test), the command, and the prompt templates. The
 * settings are checked with core's checkProposerSettings() off the GUI thread (it reads the prompt folder)
 * and the verdict is shown inline; OK stays disabled while they are invalid. The API key is saved through
 * the secret store (ApiKeyEditor) and never becomes part of config().
 */
class ProposerSettingsDialog : public QDialog
{
    Q_OBJECT

public:
    /// @p secrets (not owned, may be null: no keychain) holds the API key.
    explicit ProposerSettingsDialog(const ProposerConfig &config, SecretStore *secrets, QWidget *parent = nullptr);
    ~ProposerSettingsDialog() override;

    ProposerConfig config() const;
    void setConfig(const ProposerConfig &config);

    /// Why the settings cannot be used ("" when they can), from the last finished check.
    QString validationMessage() const { return m_validationMessage; }
    bool isValidating() const { return m_validating; }
    QString keyStatusText() const;
    ApiKeyEditor *keyEditor() const { return m_keyEditor; }

    /// Sends one short request to the endpoint with the model and key as they stand in the dialog.
    void testConnection();
    bool isTestingConnection() const { return m_testingConnection; }
    QString connectionStatusText() const;

    /// Copies the installed prompt templates into folder (off the GUI thread; files already there are kept)
    /// and points the prompts folder at it.
    void copyPromptTemplates(const QString &folder);

    /// Saves a typed key first, and waits for a check still running.
    void accept() override;
    /// Closing aborts a connection test in flight.
    void done(int result) override;

signals:
    void validated(bool ok, const QString &message);
    /// A keychain request finished and the key status line says how.
    void keyStatusChanged(const QString &text);
    /// The connection test finished; message is the line the dialog shows.
    void connectionTested(bool ok, const QString &message);
    /// Copying finished: error is empty on success.
    void promptTemplatesCopied(const QString &folder, const QString &error);

private:
    void scheduleValidation();
    void validate();
    void updateEnabled();
    void finishConnectionTest(bool ok, const QString &message);
    void showConnectionStatus(const QString &text, bool warning);
    void choosePromptsFolder();
    void chooseCopyFolder();

    ProposerConfig m_loaded; // What setConfig() got: fields the dialog does not show keep their value.
    LatestJob m_validation;  // The settings check: an older one's result is dropped.
    bool m_validating = false;
    bool m_acceptWhenReady = false; // OK was pressed while a check ran or a key was being saved.
    QString m_validationMessage;
    LatestJob m_connectionTest; // A key read for an older test is dropped.
    bool m_testingConnection = false;

    QComboBox *m_kind;
    QLabel *m_kindHelp;
    QGroupBox *m_llmGroup;
    QLineEdit *m_endpoint;
    QLineEdit *m_model;
    ApiKeyEditor *m_keyEditor;
    QPushButton *m_testConnection;
    QLabel *m_connectionStatus;
    ConnectionTester *m_tester;
    QDoubleSpinBox *m_temperature;
    QSpinBox *m_maxTokens;
    QDoubleSpinBox *m_timeout;
    QSpinBox *m_retries;
    QSpinBox *m_concurrency;
    QDoubleSpinBox *m_pricePrompt;
    QDoubleSpinBox *m_priceCompletion;
    QGroupBox *m_commandGroup;
    QLineEdit *m_command;
    QDoubleSpinBox *m_commandTimeout;
    QGroupBox *m_mixGroup;
    QSpinBox *m_share;
    QGroupBox *m_promptsGroup;
    QLineEdit *m_promptsDir;
    QLabel *m_promptsNote;
    QLabel *m_validationLabel;
    QDialogButtonBox *m_buttons;
    QTimer *m_validationTimer;
};

} // namespace kx::ui
