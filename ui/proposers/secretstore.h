#pragma once

#include <QObject>
#include <QString>

#include <functional>

namespace kx::ui {

/// The outcome of one secret store request.
struct SecretResult
{
    enum class Status {
        Ok,
        NotFound,    ///< Nothing stored under that entry.
        Unavailable, ///< No keychain service to talk to (e.g. no Secret Service on the session bus).
        Failed,      ///< The service refused or failed; message says why.
    };

    Status status = Status::Ok;
    QString secret;  ///< read() only.
    QString message; ///< The service's own words, when it gave any.
    /// Ok, but kept in memory for this session only: no keychain could take it (SessionFallbackSecretStore).
    bool sessionOnly = false;

    bool ok() const { return status == Status::Ok; }
};

/**
 * Where API keys are kept: the system keychain in the application (KeychainSecretStore), an in-memory
 * double in tests. Every request is asynchronous; done runs on the GUI thread unless context has been
 * destroyed by then, in which case it does not run.
 */
class SecretStore : public QObject
{
    Q_OBJECT

public:
    using Done = std::function<void(const SecretResult &)>;

    using QObject::QObject;

    virtual void read(const QString &entry, QObject *context, Done done) = 0;
    virtual void write(const QString &entry, const QString &secret, QObject *context, Done done) = 0;
    virtual void remove(const QString &entry, QObject *context, Done done) = 0;

    /// A sentence for people about a failed request: what the user can do instead when the keychain cannot
    /// be used (a key kept for the session, or an environment variable).
    static QString describe(const SecretResult &result);
};

} // namespace kx::ui
