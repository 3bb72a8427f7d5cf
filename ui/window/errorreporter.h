#pragma once

#include <QString>

#include <functional>

class QWidget;

namespace kx::ui {

/**
 * Shows errors that need the user's attention. By default a modal message box; tests and the
 * self-test install a handler instead, so that an error is observable without a person to close it.
 */
class ErrorReporter
{
public:
    using Handler = std::function<void(const QString &title, const QString &message)>;

    explicit ErrorReporter(QWidget *parent) : m_parent(parent) {}

    /// An empty handler restores the message box.
    void setHandler(Handler handler) { m_handler = std::move(handler); }
    void report(const QString &title, const QString &message) const;

private:
    QWidget *m_parent; // Not owned
    Handler m_handler;
};

} // namespace kx::ui
