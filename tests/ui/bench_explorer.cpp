// Explorer at scale: opens an archive in the main window (offscreen) and times what a user waits for: the kernels
// table, selection to source, the text filter and opening a run's lineage. Prints a Markdown table. Run by
// tests/bench/bench_explorer.sh; a measurement, not a test.
//   bench_explorer ARCHIVE RUN_ID
#include "ui/diff/diffview.h"
#include "ui/kernels/candidateview.h"
#include "ui/kernels/kernelsmodel.h"
#include "ui/kernels/kernelsourceview.h"
#include "ui/kernels/kernelspage.h"
#include "ui/kernels/kernelsproxymodel.h"
#include "ui/lineage/lineagepage.h"
#include "ui/lineage/lineagescene.h"
#include "ui/plots/plotspage.h"
#include "ui/window/mainwindow.h"
#include "ui/window/scratchsettings.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QTabWidget>
#include <QTest>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

using namespace kx::ui;

namespace {

// Milliseconds until done() holds, processing events; -1 after a minute.
double timeUntil(const std::function<bool()> &done)
{
    QElapsedTimer timer;
    timer.start();
    while (!done()) {
        if (timer.elapsed() > 60000)
            return -1;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    }
    return double(timer.nsecsElapsed()) / 1e6;
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values.empty() ? 0 : values[values.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    if (argc != 3) {
        std::fprintf(stderr, "usage: bench_explorer ARCHIVE RUN_ID\n");
        return 2;
    }
    ScratchSettings settings;
    MainWindow window;
    window.resize(1440, 900);
    window.show();
    QElapsedTimer open;
    open.start();
    if (!window.openArchive(QString::fromLocal8Bit(argv[1]), ArchiveSession::Access::ReadOnly))
        return 1;
    KernelsPage *kernels = window.kernelsPage();
    const double tableMs =
        double(open.elapsed()) + timeUntil([&] { return !kernels->isLoading() && kernels->model()->rowCount() > 0; });
    const int rows = kernels->model()->rowCount();

    // Selection to source: rows spread over the table, each shown in the source dock.
    std::vector<double> selections;
    for (int i = 0; i < 15; ++i) {
        const QModelIndex index = kernels->proxy()->index((i * 7919) % kernels->proxy()->rowCount(), 0);
        const QString id = index.data(KernelsModel::CandidateIdRole).toString();
        QElapsedTimer timer;
        timer.start();
        kernels->selectCandidate(id);
        timeUntil([&] {
            return window.candidateView()->candidateId() == id
                   && !window.candidateView()->sourceView()->text().isEmpty();
        });
        selections.push_back(double(timer.nsecsElapsed()) / 1e6);
    }

    // The filter: one key more, until the table shows what matches.
    auto *filter = kernels->findChild<QLineEdit *>(QStringLiteral("kernelsFilter"));
    std::vector<double> filters;
    for (const char *text : {"mutate", "cross", "variant 12", ""}) {
        const int before = kernels->proxy()->rowCount();
        QElapsedTimer timer;
        timer.start();
        filter->setText(QString::fromLatin1(text));
        timeUntil([&] { return kernels->proxy()->rowCount() != before || timer.elapsed() > 2000; });
        if (kernels->proxy()->rowCount() != before)
            filters.push_back(double(timer.nsecsElapsed()) / 1e6);
    }

    // With the Diff or the Plots page shown: selection to the page updated.
    auto *pages = window.findChild<QTabWidget *>(QStringLiteral("pages"));
    const auto shownPage = [&](QWidget *page, const std::function<bool()> &idle) {
        pages->setCurrentWidget(page);
        timeUntil(idle);
        std::vector<double> times;
        for (int i = 0; i < 5; ++i) {
            const QString id = kernels->proxy()
                                   ->index((i * 104729) % kernels->proxy()->rowCount(), 0)
                                   .data(KernelsModel::CandidateIdRole)
                                   .toString();
            QElapsedTimer timer;
            timer.start();
            kernels->selectCandidate(id);
            timeUntil([&] { return window.candidateView()->candidateId() == id; });
            QCoreApplication::processEvents();
            timeUntil(idle);
            times.push_back(double(timer.nsecsElapsed()) / 1e6);
        }
        return median(times);
    };
    const double diffMs = shownPage(window.diffView(), [&] { return !window.diffView()->isLoading(); });
    const double plotsMs = shownPage(window.plotsPage(), [&] { return !window.plotsPage()->isLoading(); });

    // The lineage of the run, from choosing it to its nodes on screen.
    LineagePage *lineage = window.lineagePage();
    pages->setCurrentWidget(lineage);
    timeUntil([&] { return !lineage->isLoading(); });
    bool laidOut = false;
    QObject::connect(lineage, &LineagePage::layoutApplied, [&] { laidOut = true; });
    QElapsedTimer timer;
    timer.start();
    lineage->showRun(QString::fromLocal8Bit(argv[2]).toLongLong());
    timeUntil([&] { return !lineage->isLoading() && laidOut; });
    const double lineageMs = double(timer.nsecsElapsed()) / 1e6;

    std::printf("| measure | ms | goal |\n|---|---:|---|\n");
    std::printf("| kernels table, %d kernels, open to rows shown | %.0f | |\n", rows, tableMs);
    std::printf("| selection to source (median of %zu) | %.1f | < 100 |\n", selections.size(), median(selections));
    std::printf("| filter, a key to the table updated (median of %zu) | %.1f | < 100 |\n", filters.size(),
                median(filters));
    std::printf("| Diff page shown: selection to the diff (median of 5) | %.0f | |\n", diffMs);
    std::printf("| Plots page shown: selection to the plots (median of 5) | %.0f | |\n", plotsMs);
    std::printf("| lineage of a %d-node run, chosen to laid out | %.0f | < 1000 |\n", lineage->graph().size(),
                lineageMs);
    return 0;
}
