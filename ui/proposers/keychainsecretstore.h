#pragma once

#include "ui/proposers/secretstore.h"

namespace kx::ui {

/**
 * Secrets in the system keychain through QtKeychain (Secret Service, KWallet, macOS Keychain, Windows
 * Credential Store). Never falls back to plain-text storage: where no keychain service runs, requests
 * end with SecretResult::Status::Unavailable.
 */
class KeychainSecretStore : public SecretStore
{
    Q_OBJECT

public:
    /// Entries are stored under service (default: "kernel-explorer").
    explicit KeychainSecretStore(const QString &service = {}, QObject *parent = nullptr);

    void read(const QString &entry, QObject *context, Done done) override;
    void write(const QString &entry, const QString &secret, QObject *context, Done done) override;
    void remove(const QString &entry, QObject *context, Done done) override;

private:
    QString m_service;
};

} // namespace kx::ui
