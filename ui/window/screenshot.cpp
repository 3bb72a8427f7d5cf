#include "ui/window/screenshot.h"

#include "ui/common/eventwait.h"
#include "ui/diff/diffview.h"
#include "ui/kernels/candidateview.h"
#include "ui/kernels/kernelsmodel.h"
#include "ui/kernels/kernelspage.h"
#include "ui/kernels/kernelsproxymodel.h"
#include "ui/lineage/lineagepage.h"
#include "ui/plots/plotspage.h"
#include "ui/review/reviewpage.h"
#include "ui/window/archivestatuswidget.h"
#include "ui/window/mainwindow.h"
#include "ui/window/scratchsettings.h"

#include <QDockWidget>
#include <QImage>
#include <QPixmap>
#include <QTabWidget>
#include <QTableView>

#include <cstdio>
#include <functional>
#include <map>

namespace kx::ui {

namespace {

constexpr int kTimeoutMs = 60000;

int fail(const QString &message)
{
    std::fprintf(stderr, "kernel-explorer --screenshot: %s\n", qPrintable(message));
    return 1;
}

} // namespace

int takeScreenshot(const QString &archivePath, const QString &imagePath, const QString &pageName,
                   const QString &candidatePrefix)
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

    // Show the kernel asked for, or the fastest, as someone looking for the best result would.
    page->view()->sortByColumn(KernelsModel::SpeedupColumn, Qt::DescendingOrder);
    int row = 0;
    if (!candidatePrefix.isEmpty()) {
        row = -1;
        for (int i = 0; i < page->proxy()->rowCount() && row < 0; ++i)
            if (page->proxy()->index(i, 0).data(KernelsModel::CandidateIdRole).toString().startsWith(candidatePrefix))
                row = i;
        if (row < 0)
            return fail(QStringLiteral("no kernel %1 in the archive").arg(candidatePrefix));
    }
    if (page->proxy()->rowCount() > 0) {
        const QString id = page->proxy()->index(row, 0).data(KernelsModel::CandidateIdRole).toString();
        page->selectCandidate(id);
        if (!waitUntil([&] { return window.candidateView()->candidateId() == id; }, kTimeoutMs))
            return fail(QStringLiteral("the kernel's details did not load"));
    }
    waitUntil([&] { return !window.archiveStatus()->countsText().isEmpty(); }, kTimeoutMs);

    // Another page: shown, it reads what it draws for the selected kernel.
    auto *pages = window.findChild<QTabWidget *>(QStringLiteral("pages"));
    const std::map<QString, std::pair<QWidget *, std::function<bool()>>> shown{
        {QStringLiteral("kernels"), {page, [page] { return !page->isLoading(); }}},
        {QStringLiteral("lineage"), {window.lineagePage(), [&] { return !window.lineagePage()->isLoading(); }}},
        {QStringLiteral("diff"), {window.diffView(), [&] { return !window.diffView()->isLoading(); }}},
        {QStringLiteral("plots"), {window.plotsPage(), [&] { return !window.plotsPage()->isLoading(); }}},
        {QStringLiteral("review"), {window.reviewPage(), [&] { return !window.reviewPage()->isLoading(); }}},
    };
    const auto chosen = shown.find(pageName.isEmpty() ? QStringLiteral("kernels") : pageName);
    if (chosen == shown.end())
        return fail(QStringLiteral("no page %1 (kernels, lineage, diff, plots, review)").arg(pageName));
    pages->setCurrentWidget(chosen->second.first);
    waitUntil([] { return false; }, 100); // the page asks for what it shows when it is shown
    if (!waitUntil(chosen->second.second, kTimeoutMs))
        return fail(QStringLiteral("the %1 page did not load").arg(pageName));
    // The review queue holds flagged kernels only: the one asked for, where it is among them.
    if (chosen->second.first == window.reviewPage() && !candidatePrefix.isEmpty()) {
        window.reviewPage()->selectCandidate(window.candidateView()->candidateId());
        waitUntil([] { return false; }, 100);
        waitUntil(chosen->second.second, kTimeoutMs);
    }
    waitUntil([] { return false; }, 200); // Let pending layout and paint events settle.

    const QImage image = window.grab().toImage();
    if (image.isNull() || !image.save(imagePath))
        return fail(QStringLiteral("cannot write %1").arg(imagePath));
    std::printf("%s\n", qPrintable(imagePath));
    return 0;
}

} // namespace kx::ui
