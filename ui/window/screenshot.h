#pragma once

#include <QString>

namespace kx::ui {

/// `kernel-explorer --screenshot OUT.png [--page PAGE] ARCHIVE`: opens the archive read-only in a main window of
/// a fixed size, selects the fastest kernel, waits for its details, shows the page (kernels, lineage, diff or
/// plots; kernels by default) once it has read what it shows, and saves the window as an image.
/// Returns the exit code. Uses temporary settings; the user's stay untouched.
int takeScreenshot(const QString &archivePath, const QString &imagePath, const QString &page = {},
                   const QString &candidatePrefix = {});

} // namespace kx::ui
