#pragma once

#include <QTemporaryDir>

namespace kx::ui {

/// Points QSettings at a temporary folder for its lifetime, so that automated runs (self-test,
/// screenshots) neither read nor change the user's settings.
class ScratchSettings
{
public:
    ScratchSettings();
    bool isValid() const { return m_dir.isValid(); }
    QString path() const { return m_dir.path(); }

private:
    QTemporaryDir m_dir;
};

} // namespace kx::ui
