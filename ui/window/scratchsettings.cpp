#include "ui/window/scratchsettings.h"

#include <QSettings>

namespace kx::ui {

ScratchSettings::ScratchSettings()
{
    if (!m_dir.isValid())
        return;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.path());
}

} // namespace kx::ui
