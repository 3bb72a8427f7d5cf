#include "ui/plots/portabilitytable.h"

#include "ui/common/format.h"
#include "ui/plots/plotsdata.h"

#include <QHeaderView>

#include <algorithm>
#include <numeric>

namespace kx::ui {

namespace {

QTableWidgetItem *cell(const QString &text, const QString &toolTip = {})
{
    auto *item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    item->setToolTip(toolTip);
    return item;
}

} // namespace

PortabilityTable::PortabilityTable(QWidget *parent)
    : QTableWidget(parent)
{
    setObjectName(QStringLiteral("portabilityTable"));
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setAlternatingRowColors(true);
    setWordWrap(false);
    verticalHeader()->hide();
    horizontalHeader()->setStretchLastSection(true);
    setToolTip(tr("Speedup over eager PyTorch on each GPU. Spread: how much faster the kernel's best GPU makes it "
                  "than its worst; on two cards of one model it is measurement noise"));
}

void PortabilityTable::showData(const PlotsData &data)
{
    clear();
    const int gpus = int(data.gpus.size());
    setColumnCount(gpus + 2);
    QStringList headers{tr("Kernel")};
    headers << data.gpus << tr("Spread");
    setHorizontalHeaderLabels(headers);

    // Kernels on the most GPUs first, then by their best speedup.
    std::vector<int> order(std::size_t(data.candidateIds.size()));
    std::iota(order.begin(), order.end(), 0);
    const auto measuredOn = [&](int c) {
        int count = 0;
        for (const auto &perGpu : data.speedups)
            count += perGpu[std::size_t(c)] > 0;
        return count;
    };
    const auto best = [&](int c) {
        double value = 0;
        for (const auto &perGpu : data.speedups)
            value = std::max(value, perGpu[std::size_t(c)]);
        return value;
    };
    order.erase(std::remove_if(order.begin(), order.end(), [&](int c) { return measuredOn(c) == 0; }), order.end());
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return measuredOn(a) != measuredOn(b) ? measuredOn(a) > measuredOn(b) : best(a) > best(b);
    });

    setRowCount(kReferenceRows + int(order.size()));
    setItem(0, 0, cell(tr("eager PyTorch"), tr("The time of eager PyTorch on each GPU (median)")));
    setItem(1, 0, cell(tr("torch.compile (Inductor)"), tr("Inductor's speedup over eager on each GPU")));
    for (int g = 0; g < gpus; ++g) {
        const double eager = g < int(data.eagerMs.size()) ? data.eagerMs[std::size_t(g)] : 0;
        setItem(0, g + 1, cell(eager > 0 ? Format::ms(eager) : QStringLiteral("–")));
        const PlotsData::InductorReference *inductor =
            g < int(data.inductor.size()) ? &data.inductor[std::size_t(g)] : nullptr;
        setItem(1, g + 1,
                inductor && inductor->speedupOverEager > 0
                    ? cell(Format::speedup(inductor->speedupOverEager), inductor->method)
                    : cell(QStringLiteral("–"), inductor ? inductor->note : QString()));
    }
    for (int row = 0; row < int(order.size()); ++row) {
        const int c = order[std::size_t(row)];
        const QString id = data.candidateIds.at(c);
        auto *name = cell(Format::shortId(id.toStdString()), id);
        name->setData(Qt::UserRole, id);
        setItem(kReferenceRows + row, 0, name);
        double lowest = 0, highest = 0;
        for (int g = 0; g < gpus; ++g) {
            const double speedup = data.speedups[std::size_t(g)][std::size_t(c)];
            setItem(kReferenceRows + row, g + 1, cell(speedup > 0 ? Format::speedup(speedup) : QStringLiteral("–")));
            if (speedup > 0) {
                lowest = lowest > 0 ? std::min(lowest, speedup) : speedup;
                highest = std::max(highest, speedup);
            }
        }
        setItem(kReferenceRows + row, gpus + 1,
                cell(measuredOn(c) > 1 ? QStringLiteral("%1%").arg((highest / lowest - 1) * 100, 0, 'f', 1)
                                       : QStringLiteral("–"),
                     measuredOn(c) > 1 ? QString() : tr("Timed on one GPU only")));
    }
    resizeColumnsToContents();
}

} // namespace kx::ui
