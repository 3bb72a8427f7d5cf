#include "ui/window/errorreporter.h"

#include <QCoreApplication>

namespace kx::ui {

std::optional<ErrorLook> errorLook(ErrorKind kind)
{
    // No GPU is the machine's state, not a fault: browsing and reviewing still work.
    switch (kind) {
    case ErrorKind::Failed: return ErrorLook{QString(), QMessageBox::Critical};
    case ErrorKind::BadInput:
        return ErrorLook{QCoreApplication::translate("kx::ui::ErrorReporter", "Invalid input"), QMessageBox::Warning};
    case ErrorKind::NoGpu:
        return ErrorLook{QCoreApplication::translate("kx::ui::ErrorReporter", "No GPU"), QMessageBox::Information};
    case ErrorKind::Unavailable:
        return ErrorLook{QCoreApplication::translate("kx::ui::ErrorReporter", "Not available"), QMessageBox::Warning};
    case ErrorKind::Cancelled: return std::nullopt;
    }
    return ErrorLook{};
}

void showErrorBox(QWidget *parent, const QString &title, const Error &error)
{
    const auto look = errorLook(error.kind);
    if (!look)
        return;
    const QString message = QString::fromStdString(error.message);
    QMessageBox box(look->icon, title, look->heading.isEmpty() ? message : look->heading, QMessageBox::Ok, parent);
    if (!look->heading.isEmpty())
        box.setInformativeText(message);
    box.exec();
}

void ErrorReporter::report(const QString &title, const QString &message) const
{
    if (m_handler) {
        m_handler(title, message);
        return;
    }
    QMessageBox::critical(m_parent, title, message);
}

void ErrorReporter::report(const QString &title, const Error &error) const
{
    const auto look = errorLook(error.kind);
    if (!look)
        return;
    if (m_handler) {
        const QString message = QString::fromStdString(error.message);
        m_handler(title, look->heading.isEmpty() ? message : look->heading + QStringLiteral(": ") + message);
        return;
    }
    showErrorBox(m_parent, title, error);
}

} // namespace kx::ui
