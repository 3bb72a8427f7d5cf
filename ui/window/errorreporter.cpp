#include "ui/window/errorreporter.h"

#include <QMessageBox>

namespace kx::ui {

void ErrorReporter::report(const QString &title, const QString &message) const
{
    if (m_handler) {
        m_handler(title, message);
        return;
    }
    QMessageBox::critical(m_parent, title, message);
}

} // namespace kx::ui
