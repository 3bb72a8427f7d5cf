#pragma once

// An in-memory stand-in for the system keychain: asynchronous like the real one (answers from the event
// loop), and it can play a machine without any keychain service, or a keychain that refuses access.
#include "ui/proposers/secretstore.h"

#include <QMap>
#include <QPointer>
#include <QTimer>

namespace kx::test {

class FakeSecretStore : public ui::SecretStore
{
public:
    explicit FakeSecretStore(bool available = true, QObject *parent = nullptr)
        : SecretStore(parent)
        , m_available(available)
    {}

    void setAvailable(bool available) { m_available = available; }
    /// Every request ends with access denied (a locked keychain whose user said no).
    void setRefusing(bool refusing) { m_refusing = refusing; }
    QMap<QString, QString> entries() const { return m_entries; }
    void setEntry(const QString &entry, const QString &secret) { m_entries.insert(entry, secret); }
    int requests() const { return m_requests; }

    void read(const QString &entry, QObject *context, Done done) override
    {
        ui::SecretResult result = answer();
        if (result.ok()) {
            if (m_entries.contains(entry))
                result.secret = m_entries.value(entry);
            else
                result.status = ui::SecretResult::Status::NotFound;
        }
        reply(context, std::move(done), result);
    }
    void write(const QString &entry, const QString &secret, QObject *context, Done done) override
    {
        const ui::SecretResult result = answer();
        if (result.ok())
            m_entries.insert(entry, secret);
        reply(context, std::move(done), result);
    }
    void remove(const QString &entry, QObject *context, Done done) override
    {
        ui::SecretResult result = answer();
        if (result.ok() && m_entries.remove(entry) == 0)
            result.status = ui::SecretResult::Status::NotFound;
        reply(context, std::move(done), result);
    }

private:
    ui::SecretResult answer()
    {
        ++m_requests;
        ui::SecretResult result;
        if (!m_available) {
            result.status = ui::SecretResult::Status::Unavailable;
            result.message = QStringLiteral("Cannot autolaunch D-Bus without X11 $DISPLAY");
        } else if (m_refusing) {
            result.status = ui::SecretResult::Status::Failed;
            result.message = QStringLiteral("Access to the keychain was denied");
        }
        return result;
    }
    static void reply(QObject *context, Done done, const ui::SecretResult &result)
    {
        QTimer::singleShot(0, context, [done = std::move(done), result] { done(result); });
    }

    bool m_available;
    bool m_refusing = false;
    QMap<QString, QString> m_entries;
    int m_requests = 0;
};

} // namespace kx::test
