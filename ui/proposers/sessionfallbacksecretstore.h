#pragma once

#include "ui/proposers/secretstore.h"

#include <QHash>
#include <QPointer>

namespace kx::ui {

/**
 * A secret store in front of the system keychain that keeps a secret in memory, for this session only,
 * when no keychain service can take it (SecretResult::Status::Unavailable). Such results come back Ok with
 * sessionOnly set, so that the user can be told the key will be gone after a restart. Secrets are never
 * written anywhere else; a refusal by the keychain (access denied) is passed on, not worked around.
 */
class SessionFallbackSecretStore : public SecretStore
{
    Q_OBJECT

public:
    /// @p keychain (not owned) is asked first.
    explicit SessionFallbackSecretStore(SecretStore *keychain, QObject *parent = nullptr);

    void read(const QString &entry, QObject *context, Done done) override;
    void write(const QString &entry, const QString &secret, QObject *context, Done done) override;
    void remove(const QString &entry, QObject *context, Done done) override;

    /// Whether entry is held in memory for this session.
    bool holdsForSession(const QString &entry) const { return m_session.contains(entry); }

private:
    QPointer<SecretStore> m_keychain; // Not owned
    QHash<QString, QString> m_session;
};

} // namespace kx::ui
