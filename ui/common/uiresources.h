#pragma once

#include <QIcon>
#include <QString>

namespace kx::ui {

/// Registers the compiled-in icons (kxui is static, so its resources must be pulled in explicitly).
void initResources();

/// The bundled SVG icons/NAME.svg. Always the bundled one, not the desktop theme's, so that all actions
/// share one style; their mid-tone colours read on light and dark palettes alike.
QIcon icon(const QString &name);

/// The application icon.
QIcon appIcon();

} // namespace kx::ui
