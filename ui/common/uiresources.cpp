#include "ui/common/uiresources.h"

#include <QFile>

// Q_INIT_RESOURCE must be used outside any namespace.
static void initKernelExplorerResources()
{
    Q_INIT_RESOURCE(kernelexplorer);
}

namespace kx::ui {

void initResources()
{
    static const bool done = [] {
        initKernelExplorerResources();
        return true;
    }();
    Q_UNUSED(done)
}

QIcon icon(const QString &name)
{
    initResources();
    const QString path = QStringLiteral(":/icons/%1.svg").arg(name);
    Q_ASSERT_X(QFile::exists(path), "kx::ui::icon", qPrintable(path));
    return QIcon(path);
}

QIcon appIcon()
{
    initResources();
    return QIcon(QStringLiteral(":/icons/kernel-explorer.svg"));
}

} // namespace kx::ui
