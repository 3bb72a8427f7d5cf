#pragma once

#include <QIcon>
#include <QString>

namespace kx::ui {

/// Registers the compiled-in icons (kxui is static, so its resources must be pulled in explicitly).
void initResources();

/// The theme's icon when the desktop has one, else the bundled SVG of the same name.
QIcon themedIcon(const QString &name);

/// The application icon.
QIcon appIcon();

} // namespace kx::ui
