#include "ui/proposers/keychainsecretstore.h"

#include <qt6keychain/keychain.h>

namespace kx::ui {

namespace {

SecretResult resultOf(const QKeychain::Job &job)
{
    SecretResult result;
    result.message = job.error() == QKeychain::NoError ? QString() : job.errorString();
    switch (job.error()) {
    case QKeychain::NoError: result.status = SecretResult::Status::Ok; break;
    case QKeychain::EntryNotFound: result.status = SecretResult::Status::NotFound; break;
    // Without a session bus the Secret Service backend ends with OtherError ("Cannot autolaunch D-Bus").
    case QKeychain::NoBackendAvailable:
    case QKeychain::NotImplemented:
    case QKeychain::OtherError: result.status = SecretResult::Status::Unavailable; break;
    case QKeychain::CouldNotDeleteEntry:
    case QKeychain::AccessDeniedByUser:
    case QKeychain::AccessDenied: result.status = SecretResult::Status::Failed; break;
    }
    return result;
}

/// Starts job and hands its result to done on context; the job deletes itself when finished.
template <typename Job, typename Fill>
void run(Job *job, const QString &entry, QObject *context, SecretStore::Done done, Fill fill)
{
    job->setAutoDelete(true);
    job->setInsecureFallback(false); // Never a plain-text copy in QSettings.
    job->setKey(entry);
    QObject *receiver = context ? context : job;
    QObject::connect(job, &QKeychain::Job::finished, receiver, [job, done = std::move(done), fill](QKeychain::Job *) {
        SecretResult result = resultOf(*job);
        if (result.ok())
            fill(*job, result);
        if (done)
            done(result);
    });
    job->start();
}

} // namespace

KeychainSecretStore::KeychainSecretStore(const QString &service, QObject *parent)
    : SecretStore(parent)
    , m_service(service.isEmpty() ? QStringLiteral("kernel-explorer") : service)
{}

void KeychainSecretStore::read(const QString &entry, QObject *context, Done done)
{
    run(new QKeychain::ReadPasswordJob(m_service), entry, context, std::move(done),
        [](const QKeychain::ReadPasswordJob &job, SecretResult &result) { result.secret = job.textData(); });
}

void KeychainSecretStore::write(const QString &entry, const QString &secret, QObject *context, Done done)
{
    auto *job = new QKeychain::WritePasswordJob(m_service);
    job->setTextData(secret);
    run(job, entry, context, std::move(done), [](const QKeychain::WritePasswordJob &, SecretResult &) {});
}

void KeychainSecretStore::remove(const QString &entry, QObject *context, Done done)
{
    run(new QKeychain::DeletePasswordJob(m_service), entry, context, std::move(done),
        [](const QKeychain::DeletePasswordJob &, SecretResult &) {});
}

} // namespace kx::ui
