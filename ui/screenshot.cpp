#include "ui/screenshot.h"

#include "ui/archivestatuswidget.h"
#include "ui/candidateview.h"
#include "ui/eventwait.h"
#include "ui/kernelsmodel.h"
#include "ui/kernelspage.h"
#include "ui/kernelsproxymodel.h"
#include "ui/mainwindow.h"
#include "ui/scratchsettings.h"

#include <QDockWidget>
#include <QImage>
#include <QPixmap>
#include <QTableView>

#include <cstdio>

namespace kx::ui {

namespace {

constexpr int kTimeoutMs = 60000;

int fail(const QString &message)
{
    std::fprintf(stderr, "kernel-explorer --screenshot: %s\n", qPrintable(message));
    return 1;
}

} // namespace

int takeScreenshot(const QString &archivePath, const QString &imagePath)
{
    ScratchSettings settings;
    if (!settings.isValid())
        return fail(QStringLiteral("no temporary folder for settings"));

    QString error;
    MainWindow window;
    window.setErrorHandler([&error](const QString &, const QString &message) { error = message; });
    window.resize(1440, 900);
    // A picture of browsing: the run controls would only take room from the evaluations.
    if (auto *runDock = window.findChild<QDockWidget *>(QStringLiteral("runDock")))
        runDock->hide();
    window.show();
    if (!window.openArchive(archivePath, ArchiveSession::Access::ReadOnly))
        return fail(error);

    KernelsPage *page = window.kernelsPage();
    if (!waitUntil([page] { return !page->isLoading(); }, kTimeoutMs))
        return fail(QStringLiteral("the kernels did not load"));
    if (!error.isEmpty())
        return fail(error);

    // Show the fastest kernel, as someone looking for the best result would.
    page->view()->sortByColumn(KernelsModel::SpeedupColumn, Qt::DescendingOrder);
    if (page->proxy()->rowCount() > 0) {
        const QString id = page->proxy()->index(0, 0).data(KernelsModel::CandidateIdRole).toString();
        page->selectCandidate(id);
        if (!waitUntil([&] { return window.candidateView()->candidateId() == id; }, kTimeoutMs))
            return fail(QStringLiteral("the kernel's details did not load"));
    }
    waitUntil([&] { return !window.archiveStatus()->countsText().isEmpty(); }, kTimeoutMs);
    waitUntil([] { return false; }, 200); // Let pending layout and paint events settle.

    const QImage image = window.grab().toImage();
    if (image.isNull() || !image.save(imagePath))
        return fail(QStringLiteral("cannot write %1").arg(imagePath));
    std::printf("%s\n", qPrintable(imagePath));
    return 0;
}

} // namespace kx::ui
