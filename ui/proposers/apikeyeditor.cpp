#include "ui/proposers/apikeyeditor.h"

#include "ui/common/format.h"

#include <QButtonGroup>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMetaObject>
#include <QPushButton>
#include <QRadioButton>

namespace kx::ui {

ApiKeyEditor::ApiKeyEditor(SecretStore *secrets, QWidget *parent)
    : QWidget(parent)
    , m_secrets(secrets)
    , m_fromEnvironment(new QRadioButton(tr("&Environment variable:"), this))
    , m_fromKeychain(new QRadioButton(tr("System &keychain:"), this))
    , m_source(new QButtonGroup(this))
    , m_variable(new QLineEdit(this))
    , m_key(new QLineEdit(this))
    , m_save(new QPushButton(tr("&Save Key"), this))
    , m_remove(new QPushButton(tr("Remo&ve Key"), this))
    , m_status(new QLabel(this))
{
    m_fromEnvironment->setObjectName(QStringLiteral("proposerKeyFromEnvironment"));
    m_fromKeychain->setObjectName(QStringLiteral("proposerKeyFromKeychain"));
    m_source->addButton(m_fromEnvironment);
    m_source->addButton(m_fromKeychain);
    m_variable->setObjectName(QStringLiteral("proposerKeyVariable"));
    m_variable->setPlaceholderText(QStringLiteral("OPENAI_API_KEY"));
    m_variable->setToolTip(tr("The environment variable that holds the key; only its name is saved"));
    m_key->setObjectName(QStringLiteral("proposerKey"));
    m_key->setEchoMode(QLineEdit::Password);
    m_key->setPlaceholderText(tr("paste a key"));
    m_key->setToolTip(tr("Saved in the system keychain, never in the settings or the archive; without a keychain "
                         "it is kept for this session only"));
    m_save->setObjectName(QStringLiteral("proposerSaveKey"));
    m_remove->setObjectName(QStringLiteral("proposerRemoveKey"));
    m_status->setObjectName(QStringLiteral("proposerKeyStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->hide();
    if (!m_secrets) {
        m_fromKeychain->setEnabled(false);
        m_fromKeychain->setToolTip(tr("No system keychain is available"));
    }
    m_fromEnvironment->setChecked(true);

    auto *grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(m_fromEnvironment, 0, 0);
    grid->addWidget(m_variable, 0, 1, 1, 3);
    grid->addWidget(m_fromKeychain, 1, 0);
    grid->addWidget(m_key, 1, 1);
    grid->addWidget(m_save, 1, 2);
    grid->addWidget(m_remove, 1, 3);
    grid->addWidget(m_status, 2, 1, 1, 3);
    grid->setColumnStretch(1, 1);

    connect(m_save, &QPushButton::clicked, this, &ApiKeyEditor::saveKey);
    connect(m_remove, &QPushButton::clicked, this, &ApiKeyEditor::removeKey);
    connect(m_key, &QLineEdit::textChanged, this, &ApiKeyEditor::updateEnabled);
    connect(m_variable, &QLineEdit::textChanged, this, &ApiKeyEditor::sourceChanged);
    connect(m_source, &QButtonGroup::buttonToggled, this, [this](QAbstractButton *, bool checked) {
        if (!checked)
            return;
        updateEnabled();
        refreshStatus();
        emit sourceChanged();
    });
    updateEnabled();
}

void ApiKeyEditor::setSource(ProposerConfig::KeySource source, const QString &variable)
{
    m_variable->setText(variable);
    const bool keychain = source == ProposerConfig::KeySource::Keychain && m_secrets;
    QRadioButton *button = keychain ? m_fromKeychain : m_fromEnvironment;
    if (button->isChecked()) {
        updateEnabled();
        refreshStatus(); // The toggle would have done it.
    } else {
        button->setChecked(true);
    }
}

ProposerConfig::KeySource ApiKeyEditor::source() const
{
    return m_fromKeychain->isChecked() ? ProposerConfig::KeySource::Keychain : ProposerConfig::KeySource::Environment;
}

QString ApiKeyEditor::variable() const
{
    return m_variable->text().trimmed();
}

bool ApiKeyEditor::hasTypedKey() const
{
    return m_secrets && m_fromKeychain->isChecked() && !m_key->text().trimmed().isEmpty();
}

QString ApiKeyEditor::statusText() const
{
    return m_status->text();
}

void ApiKeyEditor::updateEnabled()
{
    const bool keychain = m_fromKeychain->isChecked();
    m_variable->setEnabled(!keychain);
    m_key->setEnabled(keychain);
    m_save->setEnabled(keychain && !m_key->text().trimmed().isEmpty());
    m_remove->setEnabled(keychain);
}

void ApiKeyEditor::refreshStatus()
{
    m_keychain.invalidate();
    if (!m_fromKeychain->isChecked() || !m_secrets) {
        showStatus({}, false);
        return;
    }
    showStatus(tr("Looking in the system keychain…"), false);
    // Only whether a key is there is shown; the key itself is not kept.
    m_secrets->read(ProposerConfig::keychainEntry(), this, m_keychain.guard([this](const SecretResult &result) {
        if (result.ok() && result.sessionOnly)
            showStatus(tr("An API key is kept for this session only: no system keychain could store it."), true);
        else if (result.ok())
            showStatus(tr("An API key is saved in the system keychain."), false);
        else if (result.status == SecretResult::Status::NotFound)
            showStatus(tr("No API key is saved in the system keychain yet."), true);
        else
            showStatus(SecretStore::describe(result), true);
    }));
}

void ApiKeyEditor::showStatus(const QString &text, bool warning)
{
    m_status->setText(text);
    m_status->setVisible(!text.isEmpty());
    QPalette palette = m_status->palette();
    palette.setColor(QPalette::WindowText,
                     warning ? Format::warningColor() : this->palette().color(QPalette::WindowText));
    m_status->setPalette(palette);
    emit statusChanged(text);
}

void ApiKeyEditor::saveKey()
{
    const QString key = m_key->text().trimmed();
    if (key.isEmpty() || !m_secrets)
        return;
    m_save->setEnabled(false);
    showStatus(tr("Saving the key in the system keychain…"), false);
    m_secrets->write(
        ProposerConfig::keychainEntry(), key, this, m_keychain.guard([this, key](const SecretResult &result) {
            if (result.ok()) {
                if (m_key->text().trimmed() == key)
                    m_key->clear();
                if (result.sessionOnly) {
                    const QString reason =
                        result.message.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(result.message);
                    showStatus(tr("No system keychain is available%1: the API key is kept for this session only and "
                                  "has to be entered again after a restart.")
                                   .arg(reason),
                               true);
                } else {
                    showStatus(tr("The API key is saved in the system keychain."), false);
                }
            } else {
                showStatus(SecretStore::describe(result), true);
            }
            updateEnabled();
            emit saved(result.ok());
        }));
}

void ApiKeyEditor::removeKey()
{
    if (!m_secrets)
        return;
    m_key->clear();
    m_secrets->remove(ProposerConfig::keychainEntry(), this, m_keychain.guard([this](const SecretResult &result) {
        if (result.ok() || result.status == SecretResult::Status::NotFound)
            showStatus(tr("No API key is saved in the system keychain."), false);
        else
            showStatus(SecretStore::describe(result), true);
    }));
}

void ApiKeyEditor::currentKey(QObject *context, KeyDone done) const
{
    const auto later = [context](KeyDone done, const QString &key, const QString &error) {
        QMetaObject::invokeMethod(
            context, [done = std::move(done), key, error] { done(key, error); }, Qt::QueuedConnection);
    };
    if (!m_fromKeychain->isChecked() || !m_secrets) {
        later(std::move(done), {}, {});
        return;
    }
    if (const QString typed = m_key->text().trimmed(); !typed.isEmpty()) {
        later(std::move(done), typed, {});
        return;
    }
    m_secrets->read(ProposerConfig::keychainEntry(), context, [done = std::move(done)](const SecretResult &result) {
        if (result.ok() && !result.secret.isEmpty())
            done(result.secret, {});
        else
            done({}, SecretStore::describe(result.ok() ? SecretResult{SecretResult::Status::NotFound, {}, {}, false}
                                                       : result));
    });
}

} // namespace kx::ui
