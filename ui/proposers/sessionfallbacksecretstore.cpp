#include "ui/proposers/sessionfallbacksecretstore.h"

#include <QMetaObject>

namespace kx::ui {

namespace {

SecretResult unavailable()
{
    return {SecretResult::Status::Unavailable, {}, {}, false};
}

/// Hands result to done from the event loop, as the keychain would: callers never see a re-entrant answer.
void answerLater(QObject *context, SecretStore::Done done, const SecretResult &result)
{
    if (!done)
        return;
    QMetaObject::invokeMethod(
        context, [done = std::move(done), result] { done(result); }, Qt::QueuedConnection);
}

} // namespace

SessionFallbackSecretStore::SessionFallbackSecretStore(SecretStore *keychain, QObject *parent)
    : SecretStore(parent)
    , m_keychain(keychain)
{}

void SessionFallbackSecretStore::read(const QString &entry, QObject *context, Done done)
{
    // A key kept for the session was put there because the keychain could not take it: it is the one meant.
    if (const auto found = m_session.constFind(entry); found != m_session.constEnd()) {
        answerLater(context ? context : this, std::move(done), {SecretResult::Status::Ok, *found, {}, true});
        return;
    }
    if (!m_keychain) {
        answerLater(context ? context : this, std::move(done), unavailable());
        return;
    }
    m_keychain->read(entry, context, std::move(done));
}

void SessionFallbackSecretStore::write(const QString &entry, const QString &secret, QObject *context, Done done)
{
    if (!m_keychain) {
        m_session.insert(entry, secret);
        answerLater(context ? context : this, std::move(done), {SecretResult::Status::Ok, {}, {}, true});
        return;
    }
    QPointer<SessionFallbackSecretStore> self(this);
    m_keychain->write(entry, secret, context,
                      [self, entry, secret, done = std::move(done)](const SecretResult &result) {
                          SecretResult answer = result;
                          if (self) {
                              if (result.status == SecretResult::Status::Unavailable) {
                                  self->m_session.insert(entry, secret);
                                  answer.status = SecretResult::Status::Ok;
                                  answer.sessionOnly = true; // message keeps the keychain's reason
                              } else if (result.ok()) {
                                  self->m_session.remove(entry); // The keychain has the newer one.
                              }
                          }
                          if (done)
                              done(answer);
                      });
}

void SessionFallbackSecretStore::remove(const QString &entry, QObject *context, Done done)
{
    const bool held = m_session.remove(entry) > 0;
    if (!m_keychain) {
        answerLater(context ? context : this, std::move(done),
                    held ? SecretResult{} : SecretResult{SecretResult::Status::NotFound, {}, {}, false});
        return;
    }
    m_keychain->remove(entry, context, [held, done = std::move(done)](const SecretResult &result) {
        SecretResult answer = result;
        // Gone from memory is gone, even where there is no keychain to ask.
        if (held
            && (result.status == SecretResult::Status::Unavailable || result.status == SecretResult::Status::NotFound))
            answer = SecretResult{SecretResult::Status::Ok, {}, result.message, true};
        if (done)
            done(answer);
    });
}

} // namespace kx::ui
