#pragma once

#include "ui/common/latestjob.h"
#include "ui/proposers/proposerconfig.h"
#include "ui/proposers/secretstore.h"

#include <QPointer>
#include <QWidget>

#include <functional>

class QButtonGroup;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;

namespace kx::ui {

/**
 * Where a language model's API key comes from: the name of an environment variable, or the system keychain
 * (with a field to save a key there and a line that says whether one is saved). Without a keychain service
 * the store in use keeps a saved key for this session only, and the line says so. The key itself is never
 * kept by this widget once it is saved.
 */
class ApiKeyEditor : public QWidget
{
    Q_OBJECT

public:
    /// @p secrets (not owned, may be null: no keychain at all) holds the key.
    explicit ApiKeyEditor(SecretStore *secrets, QWidget *parent = nullptr);

    void setSource(ProposerConfig::KeySource source, const QString &variable);
    ProposerConfig::KeySource source() const;
    QString variable() const;

    /// Whether a key is typed in and not saved yet.
    bool hasTypedKey() const;
    QString statusText() const;

    /// Saves the typed key; the field is cleared once it is saved. saved() tells how it went.
    void saveKey();
    void removeKey();

    /// The key a request would send: a typed key, else the saved one when the key comes from the keychain;
    /// empty when it comes from the environment (the client reads the variable itself). error is empty
    /// unless a keychain key was wanted and could not be had.
    using KeyDone = std::function<void(const QString &key, const QString &error)>;
    void currentKey(QObject *context, KeyDone done) const;

signals:
    /// The source or the variable name changed.
    void sourceChanged();
    /// A keychain request finished and the status line says how.
    void statusChanged(const QString &text);
    void saved(bool ok);

private:
    void updateEnabled();
    void refreshStatus();
    void showStatus(const QString &text, bool warning);

    QPointer<SecretStore> m_secrets; // Not owned
    LatestJob m_keychain;            // An older answer does not overwrite a newer one.

    QRadioButton *m_fromEnvironment;
    QRadioButton *m_fromKeychain;
    QButtonGroup *m_source;
    QLineEdit *m_variable;
    QLineEdit *m_key;
    QPushButton *m_save;
    QPushButton *m_remove;
    QLabel *m_status;
};

} // namespace kx::ui
