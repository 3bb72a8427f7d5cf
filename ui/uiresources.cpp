#include "ui/uiresources.h"

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

QIcon themedIcon(const QString &name)
{
    initResources();
    return QIcon::fromTheme(name, QIcon(QStringLiteral(":/icons/%1.svg").arg(name)));
}

QIcon appIcon()
{
    initResources();
    return QIcon(QStringLiteral(":/icons/kernel-explorer.svg"));
}

} // namespace kx::ui
