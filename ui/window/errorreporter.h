#pragma once

#include "core/util/expected.h"

#include <QMessageBox>
#include <QString>

#include <functional>
#include <optional>

class QWidget;

namespace kx::ui {

/// How a failure of a kind is shown: the words that head it (empty for a plain failure) and the icon.
struct ErrorLook
{
    QString heading;
    QMessageBox::Icon icon = QMessageBox::Critical;
};

/// The look of each kind of failure: "No GPU", "Not available", "Invalid input"; nullopt for a cancel, which is
/// the user's own doing and is not shown at all.
std::optional<ErrorLook> errorLook(ErrorKind kind);

/// Shows error in a message box titled title, headed and iconed by its kind; a cancel shows nothing.
void showErrorBox(QWidget *parent, const QString &title, const Error &error);

/**
 * Shows errors that need the user's attention. By default a modal message box; tests and the
 * self-test install a handler instead, so that an error is observable without a person to close it.
 */
class ErrorReporter
{
public:
    using Handler = std::function<void(const QString &title, const QString &message)>;

    explicit ErrorReporter(QWidget *parent)
        : m_parent(parent)
    {}

    /// An empty handler restores the message box.
    void setHandler(Handler handler) { m_handler = std::move(handler); }
    void report(const QString &title, const QString &message) const;
    /// As errorLook() says for its kind: a cancel is not reported; a handler gets the heading before the message.
    void report(const QString &title, const Error &error) const;

private:
    QWidget *m_parent; // Not owned
    Handler m_handler;
};

} // namespace kx::ui
